//! The cost-mode table: instructions per transaction per variant and step, and each pair's
//! ratio; unstable counts are shown marked.

use super::grid::{column, label, Kind, Table, Value};
use super::subject::{Pair, Subject};
use crate::results::COST_TOLERANCE;

/// Cost mode: instructions per transaction per variant, and each pair's ratio.
pub fn cost(s: &Subject) -> Table {
    let res = &s.results;
    let mut steps: Vec<String> = Vec::new();
    for c in &res.cost {
        if !steps.contains(&c.step) {
            steps.push(c.step.clone());
        }
    }
    let variants: Vec<String> = super::subject::variants(res)
        .into_iter()
        .filter(|v| res.cost.iter().any(|c| &c.variant == v))
        .collect();
    let pairs: Vec<&Pair> = s
        .pairs
        .iter()
        .filter(|p| variants.contains(&p.new) && variants.contains(&p.base))
        .collect();
    let ir = |v: &str, step: &str| res.cost_for(v, step).filter(|c| c.ok);
    // An unstable count is shown, marked, and so is every ratio it enters.
    let mark = |v: Value, unstable: bool| {
        if unstable {
            Value::Flagged(Box::new(v))
        } else {
            v
        }
    };
    let mut columns = vec![label("step")];
    columns.extend(variants.iter().map(|v| column(v.as_str(), Kind::Number)));
    columns.extend(pairs.iter().map(|p| column(p.label(), Kind::Ratio)));
    let rows = steps
        .iter()
        .map(|step| {
            let mut row = vec![Value::Text(step.clone())];
            row.extend(variants.iter().map(|v| match res.cost_for(v, step) {
                Some(c) if c.ok => mark(Value::Number(c.ir_per_txn), c.unstable),
                Some(_) => Value::Missing("failed".into()),
                None => Value::Missing("—".into()),
            }));
            row.extend(
                pairs
                    .iter()
                    .map(|p| match (ir(&p.new, step), ir(&p.base, step)) {
                        (Some(n), Some(b)) if b.ir_per_txn > 0.0 => mark(
                            Value::Ratio(n.ir_per_txn / b.ir_per_txn),
                            n.unstable || b.unstable,
                        ),
                        _ => Value::Missing("—".into()),
                    }),
            );
            row
        })
        .collect();
    Table {
        id: "cost".into(),
        title: "Cost mode: instructions per transaction".into(),
        note: format!("Instructions per transaction under callgrind (user space, one connection, no contention, reading the next request not counted): windows of 1, 2, 3… replays of one block of transactions, the difference between the first and last windows divided by the difference in transactions; the estimates between consecutive windows agree within {:.1}% or the value is marked unstable (see Validity). Ratios new / base. Path length, not contention: do not mix with throughput.", COST_TOLERANCE * 100.0),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: "No cost-mode results.".into(),
    }
}
