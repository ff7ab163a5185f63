//! The numbers behind the report tables, computed once from a results document and rendered
//! by each output format.

use crate::results::{CellResult, Flag, StudyResults};
use crate::stats::{compare, Comparison, Summary};
use std::collections::BTreeSet;

/// One (step, threads) row of the throughput table.
pub struct ThroughputRow {
    pub step: String,
    pub threads: u32,
    /// Per variant, in the study's order: the median over rounds and the comparison with the base.
    pub cells: Vec<VariantCell>,
}

pub struct VariantCell {
    pub variant: String,
    pub tps: Option<Summary>,
    pub vs_base: Option<Comparison>,
    pub failed: usize,
    pub flags: BTreeSet<Flag>,
}

/// Values of one metric over the successful rounds of a (variant, step, threads).
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

/// The variants measured in throughput mode, in the study's order.
pub fn throughput_variants(res: &StudyResults) -> Vec<String> {
    res.study
        .variants
        .iter()
        .map(|v| v.name.clone())
        .filter(|n| res.cells.iter().any(|c| &c.key.variant == n))
        .collect()
}

/// Every (step, threads) with results, in the study's order.
pub fn steps(res: &StudyResults) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for w in &res.study.workloads {
        for t in res.study.threads_for(w) {
            let key = (w.label(), t);
            if res
                .cells
                .iter()
                .any(|c| c.key.step == key.0 && c.key.threads == t)
                && !out.contains(&key)
            {
                out.push(key);
            }
        }
    }
    out
}

pub fn metric_values(
    res: &StudyResults,
    variant: &str,
    step: &str,
    threads: u32,
    f: impl Fn(&CellResult) -> f64,
) -> Vec<f64> {
    rounds(res, variant, step, threads)
        .filter(|c| c.ok)
        .map(f)
        .collect()
}

pub fn throughput(res: &StudyResults) -> Vec<ThroughputRow> {
    let base = res.study.base_variant().to_string();
    let variants = throughput_variants(res);
    steps(res)
        .into_iter()
        .map(|(step, threads)| {
            let base_vals = metric_values(res, &base, &step, threads, |c| c.tps);
            let cells = variants
                .iter()
                .map(|v| {
                    let vals = metric_values(res, v, &step, threads, |c| c.tps);
                    let all: Vec<&CellResult> = rounds(res, v, &step, threads).collect();
                    VariantCell {
                        variant: v.clone(),
                        tps: Summary::of(&vals),
                        vs_base: (v != &base && !vals.is_empty() && !base_vals.is_empty())
                            .then(|| compare(&base_vals, &vals, res.study.threshold)),
                        failed: all.iter().filter(|c| !c.ok).count(),
                        flags: all.iter().flat_map(|c| c.flags.iter().copied()).collect(),
                    }
                })
                .collect();
            ThroughputRow {
                step,
                threads,
                cells,
            }
        })
        .collect()
}

/// Cost-mode rows: per step, instructions per transaction of each variant and the ratio to base.
pub struct CostRow {
    pub step: String,
    pub cells: Vec<(String, Option<f64>, Option<f64>)>,
}

pub fn cost(res: &StudyResults) -> Vec<CostRow> {
    let base = res.study.base_variant();
    let mut steps: Vec<String> = Vec::new();
    for c in &res.cost {
        if !steps.contains(&c.step) {
            steps.push(c.step.clone());
        }
    }
    let variants: Vec<&str> = res
        .study
        .variants
        .iter()
        .map(|v| v.name.as_str())
        .filter(|n| res.cost.iter().any(|c| c.variant == *n))
        .collect();
    steps
        .into_iter()
        .map(|step| {
            let ir = |v: &str| {
                res.cost_for(v, &step)
                    .filter(|c| c.ok)
                    .map(|c| c.ir_per_txn)
            };
            let b = ir(base);
            let cells = variants
                .iter()
                .map(|v| {
                    let x = ir(v);
                    let ratio = match (x, b) {
                        (Some(x), Some(b)) if b > 0.0 => Some(x / b),
                        _ => None,
                    };
                    (v.to_string(), x, ratio)
                })
                .collect();
            CostRow { step, cells }
        })
        .collect()
}
