//! The table at a glance that opens every report: a row per variant against its base, a
//! column per measure — instructions per unit of each cost step (exact), server CPU per
//! transaction over every throughput cell, and throughput per step and thread count — each
//! new / base with the relative tables' verdict mark and colour. Intervals, rounds and flags
//! stay in the tables below it.

use super::cells::{rounds, slots};
use super::cost_table::{self, CostRow};
use super::grid::{column, label, Change, Kind, Table, Value, GROUP};
use super::subject::{Pair, Subject};
use super::tables::{compare_tps, pair_flagged};
use crate::results::{CellResult, COST_TOLERANCE};
use crate::stats::{paired, unpaired, Comparison, Verdict};

/// Beyond this many columns of ratios (cost steps, server CPU and a column per (step, threads)
/// cell), throughput is pooled over steps per thread count, so that the table stays one screen
/// wide: at 1400 px, pfs-builds' 20 (7 cost steps, 12 cells) hid its last three columns.
const MAX_COLUMNS: usize = 16;

/// Which throughput cells one column pools: one (step, threads), or every step at a thread
/// count, or every thread count of a step.
struct Slot {
    name: String,
    cells: Vec<(String, u32)>,
}

/// The throughput columns beside `others` columns of instructions and server CPU.
fn throughput_columns(s: &Subject, others: usize) -> Vec<Slot> {
    let all = slots(&s.results);
    let mut steps: Vec<&str> = Vec::new();
    let mut threads: Vec<u32> = Vec::new();
    for (step, t) in &all {
        if !steps.contains(&step.as_str()) {
            steps.push(step);
        }
        if !threads.contains(t) {
            threads.push(*t);
        }
    }
    threads.sort();
    let one = |(step, t): &(String, u32)| Slot {
        name: match (steps.len(), threads.len()) {
            (_, 1) => step.clone(),
            (1, _) => format!("×{t}"),
            _ => format!("{step} ×{t}"),
        },
        cells: vec![(step.clone(), *t)],
    };
    if others + all.len() <= MAX_COLUMNS {
        return all.iter().map(one).collect();
    }
    threads
        .iter()
        .map(|t| Slot {
            name: format!("×{t}, all steps"),
            cells: all.iter().filter(|(_, u)| u == t).cloned().collect(),
        })
        .collect()
}

/// Per round, the geometric mean of a metric over `cells`, of both variants, taking only the
/// cells both measured in that round; compared as the relative tables compare one cell.
pub fn pooled(
    s: &Subject,
    p: &Pair,
    cells: &[(String, u32)],
    metric: fn(&CellResult) -> f64,
) -> Option<Comparison> {
    let res = &s.results;
    let threshold = res.study.threshold;
    let ok = |v: &str, step: &str, t: u32, round: Option<u32>| -> Vec<(u32, f64)> {
        rounds(res, v, step, t)
            .filter(|c| c.ok && round.is_none_or(|r| r == c.key.round))
            .map(|c| (c.key.round, metric(c)))
            .filter(|(_, x)| *x > 0.0 && x.is_finite())
            .collect()
    };
    let geo = |xs: &[f64]| (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp();
    if !s.paired() {
        // Two documents share no rounds: each side's rounds pooled over the cells by position.
        let side = |v: &str| -> Vec<f64> {
            let per_cell: Vec<Vec<f64>> = cells
                .iter()
                .map(|(st, t)| ok(v, st, *t, None).into_iter().map(|x| x.1).collect())
                .filter(|xs: &Vec<f64>| !xs.is_empty())
                .collect();
            let n = per_cell.iter().map(Vec::len).min().unwrap_or(0);
            (0..n)
                .map(|i| geo(&per_cell.iter().map(|xs| xs[i]).collect::<Vec<_>>()))
                .collect()
        };
        let (b, n) = (side(&p.base), side(&p.new));
        return (!b.is_empty() && !n.is_empty()).then(|| unpaired(&b, &n, threshold));
    }
    let mut by_round: Vec<(f64, f64)> = Vec::new();
    for r in 0..res.study.rounds.max(1) {
        let (mut b, mut n) = (Vec::new(), Vec::new());
        for (st, t) in cells {
            if let (Some(x), Some(y)) = (
                ok(&p.base, st, *t, Some(r)).first(),
                ok(&p.new, st, *t, Some(r)).first(),
            ) {
                b.push(x.1);
                n.push(y.1);
            }
        }
        if !b.is_empty() {
            by_round.push((geo(&b), geo(&n)));
        }
    }
    (!by_round.is_empty()).then(|| paired(&by_round, threshold))
}

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

pub fn table(s: &Subject) -> Table {
    let res = &s.results;
    let costs = cost_table::rows(s);
    let cost_steps: Vec<(String, String)> = cost_table::steps(res)
        .into_iter()
        .filter_map(|step| {
            let unit = costs.iter().find(|r| r.step == step)?.unit.clone();
            Some((step, unit))
        })
        .collect();
    let all_cells = slots(res);
    let throughput = throughput_columns(s, cost_steps.len() + 1);
    let mut columns = vec![label("variant / base")];
    columns.extend(cost_steps.iter().map(|(step, unit)| {
        column(
            format!("instructions per {unit}{GROUP}{step}"),
            Kind::Change,
        )
    }));
    if !all_cells.is_empty() {
        columns.push(column(
            format!("server CPU{GROUP}per transaction"),
            Kind::Change,
        ));
        columns.extend(
            throughput
                .iter()
                .map(|c| column(format!("throughput{GROUP}{}", c.name), Kind::Change)),
        );
    }
    let server_cpu: fn(&CellResult) -> f64 = |c| c.resources.server_cpu_us_per_txn;
    let tps: fn(&CellResult) -> f64 = |c| c.tps;
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
            for (step, _) in &cost_steps {
                row.push(
                    costs
                        .iter()
                        .find(|r| {
                            &r.step == step
                                && r.variant == p.new
                                && r.base.as_deref() == Some(p.base.as_str())
                        })
                        .map_or(Value::Missing("—".into()), cost_value),
                );
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
                for col in &throughput {
                    let value = match col.cells.as_slice() {
                        [(st, t)] => compare_tps(s, p, st, *t),
                        many => pooled(s, p, many, tps),
                    };
                    let flagged = col.cells.iter().any(|(st, t)| pair_flagged(res, p, st, *t));
                    row.push(value.map_or(Value::Missing("—".into()), |c| {
                        compact(c, false).flagged_if(flagged)
                    }));
                }
            }
            row
        })
        .collect();
    let pooled_note = if throughput.iter().any(|c| c.cells.len() > 1) {
        " With this many cells, throughput is pooled over the steps at each thread count (per round, the geometric mean over the steps)."
    } else {
        ""
    };
    Table {
        id: "glance".into(),
        title: "At a glance".into(),
        note: format!(
            "Every ratio is new / base, above 1.0 more of the measure: instructions per unit of work counted under callgrind (▲ more, ▼ fewer beyond {:.1}%), server CPU per transaction over every throughput cell (per round, the geometric mean over the cells), throughput per step and thread count (×N: N threads; ▲ faster, ▼ slower).{pooled_note} ≈ within the threshold, ? not resolved; the intervals, rounds and flags are in the tables below.",
            COST_TOLERANCE * 100.0
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
