//! A sweep's series: per sweep and cost step, each release's instructions per unit of work in
//! release order, and where the counts changed by the history's rule for counts (at least 1%
//! from the level since the last change, and clear of those releases' repeats). The report
//! shows them; bisection measures the releases between a change's two sides.

use super::changes::{precise, Change, Observation, Options};
use crate::results::{CostResult, StudyResults};

/// One sweep's counts on one step, in release order.
pub struct SweepStep<'a> {
    pub sweep: String,
    pub step: String,
    pub unit: &'static str,
    /// Each release's variant and its count.
    pub points: Vec<(&'a str, &'a CostResult)>,
    pub changes: Vec<Change>,
}

/// Each sweep's template name with its variants, in release order.
pub fn templates(res: &StudyResults) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for v in &res.study.variants {
        let Some(t) = v.sweep.as_deref() else {
            continue;
        };
        match out.iter_mut().find(|(name, _)| *name == t) {
            Some((_, members)) => members.push(&v.name),
            None => out.push((t, vec![&v.name])),
        }
    }
    out
}

/// Every sweep's steps with their changes.
pub fn sweeps(res: &StudyResults) -> Vec<SweepStep<'_>> {
    let mut out = Vec::new();
    for (t, members) in templates(res) {
        for step in cost_steps(res) {
            let points: Vec<(&str, &CostResult)> = members
                .iter()
                .filter_map(|m| {
                    res.cost_for(m, &step)
                        // An unstable count has its repeats' range as its interval.
                        .filter(|c| c.ok)
                        .map(|c| (*m, c))
                })
                .collect();
            let Some((_, first)) = points.first() else {
                continue;
            };
            let obs: Vec<Observation> = points.iter().map(|(_, c)| observation(c)).collect();
            out.push(SweepStep {
                sweep: t.to_string(),
                step: step.clone(),
                unit: first.unit.name(),
                changes: precise(&obs, &Options::PRECISE),
                points,
            });
        }
    }
    out
}

/// A count with the range of its repeated estimates.
fn observation(c: &CostResult) -> Observation {
    let (low, high) = c.repeat_range();
    Observation {
        value: c.ir_per_txn,
        low,
        high,
    }
}

/// The cost steps measured, in the order first measured.
fn cost_steps(res: &StudyResults) -> Vec<String> {
    let mut steps: Vec<String> = Vec::new();
    for c in &res.cost {
        if !steps.contains(&c.step) {
            steps.push(c.step.clone());
        }
    }
    steps
}
