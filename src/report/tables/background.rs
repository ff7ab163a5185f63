//! The Insert Benchmark's background-rate table (its SLA check): per variant and query step,
//! the writers' achieved insert rate against the target, flagged under 95% of it.

use crate::report::cells::{rounds, steps, threads_of, throughput_variants};
use crate::report::grid::{Column, Kind, Table, Value};
use crate::report::subject::Subject;
use crate::stats::median;

/// Only for studies with Insert Benchmark query steps.
pub fn background_rate(s: &Subject) -> Option<Table> {
    let res = &s.results;
    // (step, clients, target rows/s) of every query step with results.
    let query_steps: Vec<(String, u32, f64)> = steps(res)
        .into_iter()
        .flat_map(|step| {
            threads_of(res, &step)
                .into_iter()
                .map(move |t| (step.clone(), t))
        })
        .filter_map(|(step, t)| {
            let target = res
                .cells
                .iter()
                .filter(|c| c.key.step == step && c.key.threads == t)
                .find_map(|c| c.insert_benchmark.as_ref()?.background.as_ref())?
                .target_rows_per_s;
            Some((step, t, target))
        })
        .collect();
    if query_steps.is_empty() {
        return None;
    }
    let mut columns = vec![Column {
        name: "variant".into(),
        kind: Kind::Label,
    }];
    columns.extend(query_steps.iter().map(|(step, _, _)| Column {
        name: step.clone(),
        kind: Kind::Number,
    }));
    let mut rows: Vec<Vec<Value>> = throughput_variants(res)
        .iter()
        .map(|v| {
            let mut row = vec![Value::Text(v.clone())];
            row.extend(query_steps.iter().map(|(step, t, target)| {
                let bg: Vec<_> = rounds(res, v, step, *t)
                    .filter(|c| c.ok)
                    .filter_map(|c| c.insert_benchmark.as_ref()?.background.clone())
                    .collect();
                if bg.is_empty() {
                    return Value::Missing("—".into());
                }
                let rates: Vec<f64> = bg.iter().map(|b| b.inserts_per_s).collect();
                let low = bg.iter().any(|b| b.below_target);
                let m = median(&rates);
                Value::Number(m)
                    .flagged_if(low || m < crate::results::insert_benchmark::TARGET_SHARE * target)
            }));
            row
        })
        .collect();
    let mut targets = vec![Value::Text("target".into())];
    targets.extend(query_steps.iter().map(|(_, _, t)| Value::Number(*t)));
    rows.push(targets);
    Some(Table {
        id: "background".into(),
        title: "Insert Benchmark background insert rate".into(),
        note: "Rows inserted per second by the throttled writers of each query step, all clients, median over rounds; deletes follow at the same rate. The original's SLA: at least 95% of the target.".into(),
        legend: if rows.iter().flatten().any(|v| matches!(v, Value::Flagged(_))) {
            vec![format!(
                "{} under 95% of the target in at least one round",
                crate::report::grid::FLAG
            )]
        } else {
            Vec::new()
        },
        columns,
        rows,
        when_empty: String::new(),
    })
}
