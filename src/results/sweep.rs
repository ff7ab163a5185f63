//! A sweep's series: per sweep and cost step, each release's instructions per unit of work in
//! release order, with the range of its repeats; where they changed is the statistics'
//! (`stats::changes::of_counts`). The report shows them; bisection measures the releases
//! between a change's two sides.

use super::{CostResult, StudyResults};

/// One sweep's counts on one step, in release order.
pub struct SweepStep<'a> {
    pub sweep: String,
    pub step: String,
    pub unit: &'static str,
    /// Each release's variant and its count.
    pub points: Vec<(&'a str, &'a CostResult)>,
}

impl SweepStep<'_> {
    /// Each release's count with the range of its repeats: (count, low, high).
    pub fn ranges(&self) -> Vec<(f64, f64, f64)> {
        self.points
            .iter()
            .map(|(_, c)| {
                let (low, high) = c.repeat_range();
                (c.ir_per_txn, low, high)
            })
            .collect()
    }
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
            out.push(SweepStep {
                sweep: t.to_string(),
                step: step.clone(),
                unit: first.unit.name(),
                points,
            });
        }
    }
    out
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
