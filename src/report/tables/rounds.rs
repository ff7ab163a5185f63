//! Throughput per round: each variant's figure in each round and, within a study, each
//! pair's ratio in that round, so that a reader sees the spread behind an interval (the
//! interval of the relative table is formed from exactly these ratios).

use crate::report::cells::{rounds, slots, throughput_variants};
use crate::report::grid::{column, label, Kind, Table, Value, FLAG};
use crate::report::subject::{Pair, Subject};
use crate::results::{CellResult, StudyResults};
use std::collections::BTreeSet;

/// The table's id: its CSV file and anchor; the HTML page folds it away.
pub const ID: &str = "rounds";

/// The cell of `variant` at (step, threads) in `round`, if it ran.
fn cell<'a>(
    res: &'a StudyResults,
    variant: &'a str,
    step: &'a str,
    threads: u32,
    round: u32,
) -> Option<&'a CellResult> {
    rounds(res, variant, step, threads).find(|c| c.key.round == round)
}

fn tps(c: Option<&CellResult>) -> Value {
    match c {
        Some(c) if c.ok => Value::Number(c.tps).flagged_if(!c.flags.is_empty()),
        Some(_) => Value::Missing("failed".into()),
        None => Value::Missing("—".into()),
    }
}

/// new / base of one round, when both succeeded.
fn ratio(base: Option<&CellResult>, new: Option<&CellResult>) -> Value {
    match (base, new) {
        (Some(b), Some(n)) if b.ok && n.ok && b.tps > 0.0 => {
            Value::Ratio(n.tps / b.tps).flagged_if(!b.flags.is_empty() || !n.flags.is_empty())
        }
        _ => Value::Missing("—".into()),
    }
}

/// A row per (step, threads, round): every variant's throughput, then each pair's ratio.
pub fn per_round(s: &Subject) -> Table {
    let res = &s.results;
    let variants = throughput_variants(res);
    // Two documents compared share no rounds: their round k are unrelated, so no ratio.
    let pairs: Vec<&Pair> = if s.paired() {
        s.pairs
            .iter()
            .filter(|p| variants.contains(&p.new) && variants.contains(&p.base))
            .collect()
    } else {
        Vec::new()
    };
    let hosts = res.sharding.hosts().len() > 1;
    let mut columns = vec![label("step"), label("threads"), label("round")];
    if hosts {
        columns.push(label("host"));
    }
    columns.extend(variants.iter().map(|v| column(v.as_str(), Kind::Number)));
    columns.extend(pairs.iter().map(|p| column(p.label(), Kind::Ratio)));
    let mut rows = Vec::new();
    for (step, t) in slots(res) {
        let ran: BTreeSet<u32> = res
            .cells
            .iter()
            .filter(|c| c.key.step == step && c.key.threads == t)
            .map(|c| c.key.round)
            .collect();
        for round in ran {
            let mut row = vec![
                Value::Text(step.clone()),
                Value::Text(t.to_string()),
                Value::Text((round + 1).to_string()),
            ];
            if hosts {
                row.push(Value::Text(
                    res.sharding.host_of(round).unwrap_or("").to_string(),
                ));
            }
            row.extend(variants.iter().map(|v| tps(cell(res, v, &step, t, round))));
            row.extend(pairs.iter().map(|p| {
                ratio(
                    cell(res, &p.base, &step, t, round),
                    cell(res, &p.new, &step, t, round),
                )
            }));
            rows.push(row);
        }
    }
    let mut legend = Vec::new();
    if rows
        .iter()
        .flatten()
        .any(|v| matches!(v, Value::Flagged(_)))
    {
        legend.push(format!(
            "{FLAG} the round (or, for a ratio, either of its two cells) carries validity flags: see Validity."
        ));
    }
    Table {
        id: ID.into(),
        title: "Throughput per round".into(),
        note: if pairs.is_empty() {
            "Each round's throughput, the figures the throughput table summarises by median and range (rounds counted from 1). The documents compared share no rounds, so no ratio is formed per round.".into()
        } else {
            "Each round's throughput and each variant's ratio to its base within that round (new / base; rounds counted from 1): the relative table's ratio is the geometric mean of these ratios and its interval comes from their spread.".into()
        },
        columns,
        rows,
        legend,
        when_empty: "No throughput cells.".into(),
    }
}
