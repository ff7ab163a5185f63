//! Markdown tables, for the terminal and for pasting into issues.

use super::tables::{self, ThroughputRow};
use crate::results::{Flag, StudyResults};
use crate::stats::Verdict;
use std::fmt::Write;

pub fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Up => "▲",
        Verdict::Down => "▼",
        Verdict::Same => "~",
        Verdict::Unknown => "?",
    }
}

fn flag_name(f: Flag) -> &'static str {
    match f {
        Flag::ClientBound => "client-bound",
        Flag::Contaminated => "contaminated",
        Flag::Errors => "errors",
        Flag::NotSteady => "not steady",
        Flag::RateNotSustained => "rate not sustained",
    }
}

fn throughput_table(res: &StudyResults, rows: &[ThroughputRow]) -> String {
    let mut s = String::new();
    let Some(first) = rows.first() else {
        return s;
    };
    let base = res.study.base_variant();
    let n = first
        .cells
        .first()
        .and_then(|c| c.tps.map(|t| t.n))
        .unwrap_or(0);
    let _ = writeln!(
        s,
        "Throughput, transactions/s: median of {n} round(s) for {base} (the base); other variants as new/base with the 95% bootstrap interval\n"
    );
    let _ = write!(s, "| step | threads |");
    for c in &first.cells {
        let _ = write!(s, " {} |", c.variant);
    }
    let _ = write!(s, "\n|---|---:|");
    for _ in &first.cells {
        s.push_str("---:|");
    }
    s.push('\n');
    let mut flagged = std::collections::BTreeSet::new();
    for r in rows {
        let _ = write!(s, "| {} | {} |", r.step, r.threads);
        for c in &r.cells {
            let mut cell = match (&c.tps, &c.vs_base) {
                (None, _) => "failed".to_string(),
                (Some(t), None) => format!("{:.0}", t.median),
                (Some(_), Some(cmp)) if cmp.low.is_nan() => {
                    format!("{:.3} {}", cmp.ratio, mark(cmp.verdict))
                }
                (Some(_), Some(cmp)) => format!(
                    "{:.3} [{:.3}, {:.3}] {}",
                    cmp.ratio,
                    cmp.low,
                    cmp.high,
                    mark(cmp.verdict)
                ),
            };
            if c.failed > 0 && c.tps.is_some() {
                let _ = write!(cell, " ({} failed)", c.failed);
            }
            if !c.flags.is_empty() {
                cell.push_str(" ⚑");
                flagged.extend(c.flags.iter().map(|f| flag_name(*f)));
            }
            let _ = write!(s, " {cell} |");
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "\n▲/▼ change beyond {:.0}% with an interval that excludes 1.0; ~ no change called; ? fewer than 3 rounds, no call.",
        res.study.threshold * 100.0
    );
    if !flagged.is_empty() {
        let _ = writeln!(
            s,
            "⚑ validity flags in some rounds: {}",
            flagged.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    s
}

fn cost_table(res: &StudyResults) -> String {
    let rows = tables::cost(res);
    let mut s = String::new();
    let Some(first) = rows.first() else {
        return s;
    };
    let _ = writeln!(
        s,
        "Cost mode, instructions per transaction under callgrind (user space, one connection): {} absolute, others as new/base\n",
        res.study.base_variant()
    );
    let _ = write!(s, "| step |");
    for (v, _, _) in &first.cells {
        let _ = write!(s, " {v} |");
    }
    let _ = write!(s, "\n|---|");
    for _ in &first.cells {
        s.push_str("---:|");
    }
    s.push('\n');
    for r in &rows {
        let _ = write!(s, "| {} |", r.step);
        for (v, ir, ratio) in &r.cells {
            let cell = match (ir, ratio) {
                (None, _) => "failed".to_string(),
                (Some(ir), _) if v == res.study.base_variant() => format!("{ir:.0}"),
                (Some(_), Some(r)) => format!("{r:.3}"),
                (Some(ir), None) => format!("{ir:.0}"),
            };
            let _ = write!(s, " {cell} |");
        }
        s.push('\n');
    }
    s
}

/// The relative tables printed at the end of a study.
pub fn summary(res: &StudyResults) -> String {
    let mut s = format!("## {}: {}\n\n", res.study.name, res.study.description);
    let c = cost_table(res);
    if !c.is_empty() {
        s.push_str(&c);
        s.push('\n');
    }
    s.push_str(&throughput_table(res, &tables::throughput(res)));
    for n in &res.notes {
        let _ = writeln!(s, "\nNote: {n}");
    }
    s
}
