//! What a results document measured, in the study's order: its steps, the thread counts of
//! each, the variants with throughput cells, the cells of one slot over the rounds.

use crate::results::{CellResult, StudyResults};
use std::collections::BTreeSet;

/// Step labels with throughput results: the study's order, then any others.
pub fn steps(res: &StudyResults) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let known = res.steps.iter().cloned();
    let seen = res.cells.iter().map(|c| c.key.step.clone());
    for s in known.chain(seen) {
        if !out.contains(&s) && res.cells.iter().any(|c| c.key.step == s) {
            out.push(s);
        }
    }
    out
}

/// Thread counts measured for a step, ascending.
pub fn threads_of(res: &StudyResults, step: &str) -> Vec<u32> {
    let t: BTreeSet<u32> = res
        .cells
        .iter()
        .filter(|c| c.key.step == step)
        .map(|c| c.key.threads)
        .collect();
    t.into_iter().collect()
}

/// Every (step, threads) with results.
pub fn slots(res: &StudyResults) -> Vec<(String, u32)> {
    steps(res)
        .into_iter()
        .flat_map(|s| threads_of(res, &s).into_iter().map(move |t| (s.clone(), t)))
        .collect()
}

/// The variants measured in throughput mode, in the study's order.
pub fn throughput_variants(res: &StudyResults) -> Vec<String> {
    crate::report::subject::variants(res)
        .into_iter()
        .filter(|v| res.cells.iter().any(|c| &c.key.variant == v))
        .collect()
}

/// All rounds of a (variant, step, threads), failed ones included.
pub fn rounds<'a>(
    res: &'a StudyResults,
    variant: &'a str,
    step: &'a str,
    threads: u32,
) -> impl Iterator<Item = &'a CellResult> + 'a {
    res.cells
        .iter()
        .filter(move |c| c.key.variant == variant && c.key.step == step && c.key.threads == threads)
}
