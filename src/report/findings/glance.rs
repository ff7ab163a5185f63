//! The table at a glance that opens every report: a row per variant against its base and a
//! column per measure, so that it fits 100 characters: instructions per unit of work (exact;
//! one step's ratio, or the range over several), server CPU per transaction over every
//! throughput cell, and throughput as how many of its cells are resolved and their range.
//! Intervals, rounds, flags and the grid of every cell stay in the tables below it.

use crate::report::cells::slots;
use crate::report::grid::{column, label, Change, Kind, Table, Value};
use crate::report::pooled::pooled;
use crate::report::subject::Subject;
use crate::report::tables::cost::{self, CostRow};
use crate::report::tables::measurements::{compare_tps, pair_flagged};
use crate::results::{CellResult, COST_TOLERANCE};
use crate::stats::{Comparison, Verdict};

/// A change shown without its interval (the tables below give it).
fn compact(c: Comparison, cost: bool) -> Value {
    let c = Comparison {
        low: f64::NAN,
        high: f64::NAN,
        ..c
    };
    Value::Change(match cost {
        true => Change::cost(c),
        false => Change::throughput(c),
    })
}

/// An exact count's ratio, called beyond the cost table's tolerance.
fn cost_value(r: &CostRow) -> Value {
    let Some(q) = r.ratio else {
        return Value::Missing("—".into());
    };
    let verdict = if q > 1.0 + COST_TOLERANCE {
        Verdict::Above
    } else if q < 1.0 - COST_TOLERANCE {
        Verdict::Below
    } else {
        Verdict::Within
    };
    let c = Comparison {
        ratio: q,
        low: f64::NAN,
        high: f64::NAN,
        verdict,
        rounds: 1,
        spread: 0.0,
    };
    Value::Change(Change::cost(c)).flagged_if(r.ratio_unstable)
}

/// The resolved values among `values`, as one cell: the one value itself, or for several
/// "K of N: LOW–HIGH MARKS" (the range of those resolved, with the marks they carry), or
/// "none of N resolved". Exact counts are always resolved.
fn summarised(values: Vec<Value>, what: &str) -> Value {
    if values.len() == 1 {
        return values.into_iter().next().unwrap();
    }
    let flagged = values.iter().any(|v| matches!(v, Value::Flagged(_)));
    let changes: Vec<Change> = values
        .iter()
        .filter_map(|v| match v {
            Value::Change(c) => Some(*c),
            Value::Flagged(b) => match **b {
                Value::Change(c) => Some(c),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if changes.is_empty() {
        return Value::Missing("—".into());
    }
    let resolved: Vec<&Change> = changes
        .iter()
        .filter(|c| c.cmp.verdict != Verdict::NotResolved)
        .collect();
    let n = changes.len();
    let text = if resolved.is_empty() {
        format!("none of {n} resolved")
    } else {
        let lo = resolved
            .iter()
            .map(|c| c.cmp.ratio)
            .fold(f64::INFINITY, f64::min);
        let hi = resolved
            .iter()
            .map(|c| c.cmp.ratio)
            .fold(f64::NEG_INFINITY, f64::max);
        let mut marks: Vec<&str> = Vec::new();
        for c in &resolved {
            if !marks.contains(&c.mark()) {
                marks.push(c.mark());
            }
        }
        let range = if (hi - lo).abs() < 5e-4 {
            format!("{lo:.3}")
        } else {
            format!("{lo:.3}–{hi:.3}")
        };
        let count = if resolved.len() == n {
            format!("all {n}")
        } else {
            format!("{} of {n}", resolved.len())
        };
        format!("{count} {what}: {range} {}", marks.concat())
    };
    Value::Text(text).flagged_if(flagged)
}

pub fn table(s: &Subject) -> Table {
    let res = &s.results;
    let costs = cost::rows(s);
    let cost_steps: Vec<(String, String)> = cost::steps(res)
        .into_iter()
        .filter_map(|step| {
            let unit = costs.iter().find(|r| r.step == step)?.unit.clone();
            Some((step, unit))
        })
        .collect();
    let all_cells = slots(res);
    // One column per measure, so that the table fits 100 characters whatever the study's
    // size; the grid of every step and thread count is in the tables below.
    let mut columns = vec![label("variant / base")];
    if !cost_steps.is_empty() {
        columns.push(column(
            match cost_steps.as_slice() {
                [(step, _)] => format!("instructions ({step})"),
                many => format!("instructions ({} steps)", many.len()),
            },
            Kind::Change,
        ));
    }
    if !all_cells.is_empty() {
        columns.push(column("server CPU per txn", Kind::Change));
        columns.push(column(
            format!("throughput ({} cells)", all_cells.len()),
            Kind::Change,
        ));
    }
    let server_cpu: fn(&CellResult) -> f64 = |c| c.resources.server_cpu_us_per_txn;
    let rows: Vec<Vec<Value>> = s
        .pairs
        .iter()
        .filter(|p| {
            costs
                .iter()
                .any(|r| r.variant == p.new && r.ratio.is_some())
                || res.cells.iter().any(|c| c.key.variant == p.new)
        })
        .map(|p| {
            let mut row = vec![Value::Text(p.label())];
            if !cost_steps.is_empty() {
                let per_step: Vec<Value> = cost_steps
                    .iter()
                    .filter_map(|(step, _)| {
                        costs
                            .iter()
                            .find(|r| {
                                &r.step == step
                                    && r.variant == p.new
                                    && r.base.as_deref() == Some(p.base.as_str())
                            })
                            .map(cost_value)
                    })
                    .filter(|v| !matches!(v, Value::Missing(_)))
                    .collect();
                row.push(match per_step.is_empty() {
                    true => Value::Missing("—".into()),
                    false => summarised(per_step, "steps"),
                });
            }
            if !all_cells.is_empty() {
                let flagged = all_cells.iter().any(|(st, t)| pair_flagged(res, p, st, *t));
                // A variant measured in cost mode only has no cells to flag.
                row.push(
                    pooled(s, p, &all_cells, server_cpu)
                        .map_or(Value::Missing("—".into()), |c| {
                            compact(c, true).flagged_if(flagged)
                        }),
                );
                let per_cell: Vec<Value> = all_cells
                    .iter()
                    .filter_map(|(st, t)| {
                        let c = compare_tps(s, p, st, *t)?;
                        Some(compact(c, false).flagged_if(pair_flagged(res, p, st, *t)))
                    })
                    .collect();
                row.push(match per_cell.is_empty() {
                    true => Value::Missing("—".into()),
                    false => summarised(per_cell, "resolved"),
                });
            }
            row
        })
        .collect();
    Table {
        id: "glance".into(),
        title: "At a glance".into(),
        note: format!(
            "Each ratio is new / base, above 1.0 more of the measure. Instructions per unit of work are exact counts under callgrind, called beyond {:.1}% (their own threshold); server CPU per transaction is pooled over every throughput cell (per round, the geometric mean); throughput is judged cell by cell (each step and thread count) against the study's {} threshold, and the glance says how many cells are resolved and the range of those. Marks: ▲ above 1.0 and called, ▼ below, ≈ resolved within the threshold, ? not resolved, ⚑ some rounds carry validity flags, — not measured. Intervals, rounds, flags and every cell are in the tables below.",
            COST_TOLERANCE * 100.0,
            crate::report::grid::pct_threshold(res.study.threshold)
        ),
        legend: Vec::new(),
        columns,
        rows,
        when_empty: "No variant to compare with a base.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_count_is_called_beyond_the_cost_tolerance_only() {
        let row = |q: f64| CostRow {
            step: "point_select".into(),
            variant: "v".into(),
            unit: "transaction".into(),
            ir: Some(q * 100.0),
            unstable: false,
            base: Some("b".into()),
            ratio: Some(q),
            difference: Some(q * 100.0 - 100.0),
            ratio_unstable: false,
        };
        assert_eq!(cost_value(&row(1.087)).text(), "1.087 ▲");
        assert_eq!(cost_value(&row(1.001)).text(), "1.001 ≈");
        assert_eq!(cost_value(&row(0.95)).text(), "0.950 ▼");
        let mut unstable = row(1.1);
        unstable.ratio_unstable = true;
        assert_eq!(cost_value(&unstable).text(), "1.100 ▲ ⚑");
    }
}
