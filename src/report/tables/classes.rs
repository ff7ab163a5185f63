//! A step of more than one transaction class (a script step's scripts): each class's share
//! of the transactions, its throughput and its latency, medians over rounds.

use crate::report::grid::{column, label, Kind, Table, Value};
use crate::report::subject::Subject;
use crate::report::tables::measurements::{median_of, variant_rows};
use crate::results::{CellResult, ClassResult};

fn class<'a>(c: &'a CellResult, name: &str) -> Option<&'a ClassResult> {
    c.classes.iter().find(|k| k.name == name)
}

/// The classes table, when a step has classes.
pub fn classes(s: &Subject) -> Option<Table> {
    let res = &s.results;
    if res.cells.iter().all(|c| c.classes.is_empty()) {
        return None;
    }
    let mut columns = vec![
        label("step"),
        label("threads"),
        label("variant"),
        label("class"),
    ];
    for n in ["share %", "tps", "p50 ms", "p95 ms", "p99 ms"] {
        columns.push(column(n, Kind::Number));
    }
    // Failures per class where any failed (a replay's statements that failed, by kind).
    let failures = res
        .cells
        .iter()
        .any(|c| c.classes.iter().any(|k| k.errors > 0));
    if failures {
        columns.push(column("failed", Kind::Number));
    }
    let mut rows = Vec::new();
    for (step, t, v) in variant_rows(res) {
        let names: Vec<String> = res
            .cells
            .iter()
            .find(|c| c.key.variant == v && c.key.step == step && c.key.threads == t)
            .map(|c| c.classes.iter().map(|k| k.name.clone()).collect())
            .unwrap_or_default();
        for name in names {
            let of = |f: &dyn Fn(&CellResult, &ClassResult) -> f64| {
                median_of(res, &v, &step, t, |c| {
                    class(c, &name).map_or(f64::NAN, |k| f(c, k))
                })
                .map_or(Value::Missing("failed".into()), Value::Number)
            };
            let mut row = vec![
                Value::Text(step.clone()),
                Value::Text(t.to_string()),
                Value::Text(v.clone()),
                Value::Text(name.clone()),
            ];
            row.push(of(&|c, k| {
                100.0 * k.transactions as f64 / c.transactions.max(1) as f64
            }));
            row.push(of(&|_, k| k.tps));
            for p in ["p50", "p95", "p99"] {
                row.push(of(&|_, k| k.latency_ms.get(p).copied().unwrap_or(f64::NAN)));
            }
            if failures {
                row.push(of(&|_, k| k.errors as f64));
            }
            rows.push(row);
        }
    }
    Some(Table {
        id: "classes".into(),
        title: "Transaction classes".into(),
        note: "Each class of a step (a script step's scripts, a replay's kinds of statement): its share of the cell's transactions, its own throughput and latency percentiles (ms, from its own histograms), medians over rounds.".into(),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: String::new(),
    })
}
