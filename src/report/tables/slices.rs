//! Alternating cells: what their slices looked like — how many per round, their throughput's
//! spread within a round (the short-term noise that alternation pairs away), and the CPU the
//! idle servers used while another variant was measured.

use crate::report::grid::Table;
use crate::report::subject::Subject;
use crate::report::tables::measurements::per_variant_table;
use crate::results::CellResult;

/// Relative standard deviation of a cell's slices' throughput (0 with fewer than two).
fn slice_cv(c: &CellResult) -> f64 {
    let tps: Vec<f64> = c.slices.iter().map(|s| s.tps).collect();
    if tps.len() < 2 {
        return 0.0;
    }
    let n = tps.len() as f64;
    let mean = tps.iter().sum::<f64>() / n;
    let var = tps.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    if mean > 0.0 {
        var.sqrt() / mean
    } else {
        0.0
    }
}

/// A column: its name and the cell figure it shows.
type SliceColumn = (&'static str, fn(&CellResult) -> f64);

const COLUMNS: [SliceColumn; 4] = [
    ("slices", |c| c.slices.len() as f64),
    ("slice s", |c| {
        c.slices.iter().map(|s| s.duration_s).sum::<f64>() / c.slices.len().max(1) as f64
    }),
    ("slice tps CV %", |c| slice_cv(c) * 100.0),
    ("idle servers cpus", |c| {
        c.resources.idle_servers_cpu_util.unwrap_or(0.0)
    }),
];

/// The slices table, when the study alternated.
pub fn slices(s: &Subject) -> Option<Table> {
    if s.results.cells.iter().all(|c| c.slices.is_empty()) {
        return None;
    }
    let names: Vec<String> = COLUMNS.iter().map(|(n, _)| n.to_string()).collect();
    let (columns, rows) = per_variant_table(&s.results, &names, &|c, i| (COLUMNS[i].1)(c));
    Some(Table {
        id: "slices".into(),
        title: "Alternating slices".into(),
        note: "Medians over rounds of each variant's slices per cell: how many, how long, the spread of their throughput within a round (coefficient of variation), and the cores the other variants' idle servers kept busy meanwhile (not counted as another process's CPU). Ratios are formed per round from all of a round's slices, and intervals over rounds: each round starts every server anew.".into(),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: String::new(),
    })
}
