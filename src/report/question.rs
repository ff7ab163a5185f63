//! The study's question answered in its own words: where both variants of a comparison say
//! what they stand for (`means`, e.g. "performance_schema compiled in but off" against
//! "compiled out"), one sentence per step gives the instruction cost and the throughput
//! ratio with its interval and verdict, in those words. These open the Findings.

use super::cells::slots;
use super::grid::{ratio, word, Sense};
use super::subject::{Pair, Subject};
use super::tables::compare_tps;
use crate::results::{CostResult, StudyResults, COST_TOLERANCE};

fn means<'a>(res: &'a StudyResults, variant: &str) -> Option<&'a str> {
    res.study
        .variants
        .iter()
        .find(|v| v.name == variant)
        .and_then(|v| v.means.as_deref())
}

fn counted<'a>(res: &'a StudyResults, variant: &str, step: &str) -> Option<&'a CostResult> {
    res.cost_for(variant, step)
        .filter(|c| c.ok && c.ir_per_txn > 0.0)
}

/// The cost clause: "4.1% more instructions per row (1.041×)".
fn cost_clause(new: &CostResult, base: &CostResult) -> String {
    let q = new.ir_per_txn / base.ir_per_txn;
    let unit = new.unit.name();
    let care = if new.unstable || base.unstable {
        ", a count that did not repeat"
    } else {
        ""
    };
    if (q - 1.0).abs() <= COST_TOLERANCE {
        format!(
            "the same instructions per {unit} within {:.1}%{care}",
            COST_TOLERANCE * 100.0
        )
    } else {
        let more = if q > 1.0 { "more" } else { "fewer" };
        format!(
            "{:.1}% {more} instructions per {unit} ({}×{care})",
            (q - 1.0).abs() * 100.0,
            ratio(q)
        )
    }
}

/// The sentences for one comparison whose two variants both say what they mean.
fn pair_sentences(s: &Subject, p: &Pair, new_means: &str, base_means: &str) -> Vec<String> {
    let res = &s.results;
    let mut steps: Vec<String> = Vec::new();
    for c in &res.cost {
        if !steps.contains(&c.step) {
            steps.push(c.step.clone());
        }
    }
    for (step, _) in slots(res) {
        if !steps.contains(&step) {
            steps.push(step);
        }
    }
    let mut out = Vec::new();
    for step in steps {
        let mut clauses = Vec::new();
        if let (Some(n), Some(b)) = (counted(res, &p.new, &step), counted(res, &p.base, &step)) {
            clauses.push(cost_clause(n, b));
        }
        for (_, t) in slots(res).into_iter().filter(|(st, _)| *st == step) {
            if let Some(c) = compare_tps(s, p, &step, t) {
                clauses.push(format!(
                    "throughput {}× [{}, {}] at {t} thread{} ({})",
                    ratio(c.ratio),
                    ratio(c.low),
                    ratio(c.high),
                    if t == 1 { "" } else { "s" },
                    word(c.verdict, Sense::Throughput)
                ));
            }
        }
        if !clauses.is_empty() {
            out.push(format!(
                "{step}: {new_means} ({}) against {base_means} ({}): {}.",
                p.new,
                p.base,
                clauses.join("; ")
            ));
        }
    }
    out
}

/// Every comparison whose variants both carry `means`, in the order of the report's pairs.
pub fn findings(s: &Subject) -> Vec<String> {
    let res = &s.results;
    s.pairs
        .iter()
        .filter_map(|p| Some((p, means(res, &p.new)?, means(res, &p.base)?)))
        .flat_map(|(p, n, b)| pair_sentences(s, p, n, b))
        .collect()
}
