//! Which regime each cell ran in, where its steady state began, and what reached the disk:
//! the table that tells an IO-bound result from a cached one, a settled cell from a trending
//! one, and device traffic from the server's own byte counters.

use crate::report::cells::{rounds, slots, throughput_variants};
use crate::report::grid::{column, label, Kind, Table, Value};
use crate::results::{CellResult, DatasetRecord, Flag, StudyResults};
use crate::stats::median;

/// Whether any cell asked for a regime (the terminal shows this table then).
pub fn has_regimes(res: &StudyResults) -> bool {
    res.cells.iter().any(|c| c.regime.is_some())
}

/// A cell flagged as outside the regime it asked for.
fn outside_regime(c: &CellResult) -> bool {
    c.flags
        .iter()
        .any(|f| matches!(f, Flag::NotIoBound | Flag::NotCached))
}

/// The regime a cell asked for and whether its counters agreed.
fn regime_text(cells: &[&CellResult]) -> Value {
    let Some(asked) = cells.iter().find_map(|c| c.regime.map(|r| r.asked)) else {
        return Value::Missing("—".into());
    };
    let outside = cells.iter().filter(|c| outside_regime(c)).count();
    Value::Text(match outside {
        0 => format!("{} ✓", asked.label()),
        n => format!("{} ✗ {n} of {} rounds outside", asked.label(), cells.len()),
    })
}

fn med(cells: &[&CellResult], f: impl Fn(&CellResult) -> Option<f64>) -> Value {
    let v: Vec<f64> = cells.iter().filter_map(|c| f(c)).collect();
    if v.is_empty() {
        Value::Missing("—".into())
    } else {
        Value::Number(median(&v))
    }
}

/// The median of a cell's per-second throughput from its steady-state start.
fn steady_median(c: &CellResult) -> Option<f64> {
    let from = c.steady_from_s? as usize;
    let rest = c.per_second_tps.get(from..)?;
    (!rest.is_empty()).then(|| median(rest))
}

fn whole_median(c: &CellResult) -> Option<f64> {
    (!c.per_second_tps.is_empty()).then(|| median(&c.per_second_tps))
}

pub fn table(res: &StudyResults) -> Table {
    let mut columns = vec![
        label("step"),
        label("threads"),
        label("variant"),
        label("regime"),
    ];
    for name in [
        "disk reads/lookup",
        "steady from s",
        "steady median/s",
        "window median/s",
        "device rMB/s",
        "device wMB/s",
        "read IOPS",
        "write IOPS",
    ] {
        columns.push(column(name, Kind::Number));
    }
    let mut rows = Vec::new();
    // A document from before these were measured has none of them: no rows, not dashes.
    let measured = res
        .cells
        .iter()
        .any(|c| c.regime.is_some() || c.steady_from_s.is_some() || c.resources.device.is_some());
    for (step, t) in slots(res).into_iter().filter(|_| measured) {
        for v in throughput_variants(res) {
            let cells: Vec<&CellResult> = rounds(res, &v, &step, t).filter(|c| c.ok).collect();
            if cells.is_empty() {
                continue;
            }
            let dev = |f: fn(&crate::results::DeviceIo) -> f64| {
                med(&cells, move |c| c.resources.device.as_ref().map(f))
            };
            rows.push(vec![
                Value::Text(step.clone()),
                Value::Text(t.to_string()),
                Value::Text(v.clone()),
                regime_text(&cells),
                med(&cells, |c| c.regime.map(|r| r.disk_reads_per_lookup)),
                med(&cells, |c| c.steady_from_s.map(f64::from)),
                med(&cells, steady_median),
                med(&cells, whole_median),
                dev(|d| d.read_mb_s),
                dev(|d| d.write_mb_s),
                dev(|d| d.read_iops),
                dev(|d| d.write_iops),
            ]);
        }
    }
    Table {
        id: "regime-io".into(),
        title: "Regime, steady state and device IO".into(),
        note: format!(
            "Medians over rounds. Regime: what the variant asked for, ✓ when every round's counters agreed (io-bound: at least {} InnoDB pages read from disk per index lookup, Innodb_pages_read / Handler_read_key; cached: below {}). Steady state begins where the MSER-5 rule cuts the per-second series (cells of {} s or more); the steady and window medians are of per-second throughput. Device: the block device holding the datadir (/proc/diskstats), whoever issued the IO.{}",
            crate::results::REGIME_IO_BOUND_MIN,
            crate::results::REGIME_CACHED_MAX,
            crate::stats::steady::MIN_SECONDS,
            datasets_note(res)
        ),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: "No regime, steady-state or device figures in this document.".into(),
    }
}

/// The data each server started from and the share of the study spent loading and warming it.
pub fn datasets_note(res: &StudyResults) -> String {
    if res.datasets.is_empty() {
        return String::new();
    }
    let total = res
        .finished_unix
        .map(|f| f.saturating_sub(res.started_unix) as f64)
        .filter(|t| *t > 0.0);
    let parts: Vec<String> = res
        .datasets
        .iter()
        .map(|d: &DatasetRecord| {
            let share = |s: f64| match total {
                Some(t) => format!("{s:.0} s, {:.1}% of the study", 100.0 * s / t),
                None => format!("{s:.0} s"),
            };
            format!(
                "{}: {} × {} rows, {:.0} MB, loaded in {}{}",
                d.server,
                d.tables,
                d.rows_per_table,
                d.bytes as f64 / 1048576.0,
                if d.load_s > 0.0 {
                    share(d.load_s)
                } else {
                    "an earlier run (copied)".into()
                },
                if d.warm_s > 0.0 {
                    format!(", warmed in {}", share(d.warm_s))
                } else {
                    String::new()
                }
            )
        })
        .collect();
    format!(" Data: {}.", parts.join("; "))
}

/// Findings on regimes and steady state: which variants ran as asked (with their disk reads
/// and device traffic) and which did not; where long cells settled.
pub fn findings(res: &StudyResults) -> Vec<String> {
    let mut out = Vec::new();
    for v in throughput_variants(res) {
        let cells: Vec<&CellResult> = res
            .cells
            .iter()
            .filter(|c| c.ok && c.key.variant == v && c.regime.is_some())
            .collect();
        let Some(asked) = cells.first().and_then(|c| c.regime.map(|r| r.asked)) else {
            continue;
        };
        let reads = median(
            &cells
                .iter()
                .filter_map(|c| c.regime.map(|r| r.disk_reads_per_lookup))
                .collect::<Vec<_>>(),
        );
        let outside = cells.iter().filter(|c| outside_regime(c)).count();
        let device: Vec<f64> = cells
            .iter()
            .filter_map(|c| c.resources.device.map(|d| d.read_mb_s))
            .collect();
        let mb = if device.is_empty() {
            String::new()
        } else {
            format!(", {:.1} MB/s read from the device", median(&device))
        };
        out.push(match outside {
            0 => format!(
                "{v} ran {} as asked in all {} cells: {reads:.3} pages read from disk per index lookup (median){mb}.",
                asked.label(),
                cells.len()
            ),
            n => format!(
                "{v} asked for {} but {n} of {} cells were outside it ({reads:.3} pages read from disk per index lookup, median): those cells are flagged and their figures are not {} figures.",
                asked.label(),
                cells.len(),
                asked.label()
            ),
        });
    }
    out.extend(settling(res));
    out
}

/// Long cells (30 s or more) that took time to settle: where, and what it changes.
fn settling(res: &StudyResults) -> Vec<String> {
    let mut out = Vec::new();
    for (step, t) in slots(res) {
        for v in throughput_variants(res) {
            let cells: Vec<&CellResult> = rounds(res, &v, &step, t)
                .filter(|c| c.ok && c.per_second_tps.len() >= 30)
                .collect();
            let from: Vec<f64> = cells
                .iter()
                .filter_map(|c| c.steady_from_s.map(f64::from))
                .collect();
            if from.is_empty() || median(&from) == 0.0 {
                continue;
            }
            let steady: Vec<f64> = cells.iter().filter_map(|c| steady_median(c)).collect();
            let whole: Vec<f64> = cells.iter().filter_map(|c| whole_median(c)).collect();
            let unsettled = cells
                .iter()
                .filter(|c| c.flags.contains(&Flag::NotSteady))
                .count();
            let never = match unsettled {
                0 => String::new(),
                n => format!("; {n} of {} never settled", cells.len()),
            };
            out.push(format!(
                "{step}, {v} at {t} thread{}: steady state from {:.0} s of {} (median over rounds){never}; steady-state median {:.0}/s against {:.0}/s over the whole window.",
                if t == 1 { "" } else { "s" },
                median(&from),
                cells[0].per_second_tps.len(),
                median(&steady),
                median(&whole)
            ));
        }
    }
    out
}
