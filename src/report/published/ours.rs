//! Our figure for one point of a published one (a variant against its base on a step, at
//! thread counts): throughput (or the device's MB/s) formed within each round, pooled over
//! the thread counts a figure does not name, with its 95% interval; where the step was only
//! counted, the throughput the instructions predict (the base's instructions over the
//! variant's), within the counts' own repeat tolerance.

use super::judge::Ours;
use crate::report::pooled::pooled;
use crate::report::subject::{Pair, Subject};
use crate::results::published::Measure;
use crate::results::{CellResult, CostUnit, COST_TOLERANCE, COST_WRITE_TOLERANCE};

/// What our figure measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    Throughput,
    DeviceReads,
    DeviceWrites,
    Instructions,
}

impl By {
    pub fn word(self) -> &'static str {
        match self {
            By::Throughput => "throughput",
            By::DeviceReads => "device reads MB/s",
            By::DeviceWrites => "device writes MB/s",
            By::Instructions => "instructions predict",
        }
    }
}

/// The mean over a cell's steady seconds (all of them when no steady state was found).
fn steady_mean(c: &CellResult, f: fn(&crate::results::DeviceIo) -> f64) -> f64 {
    let from = c.steady_from_s.unwrap_or(0) as usize;
    let xs: Vec<f64> = c.per_second_device.iter().skip(from).map(f).collect();
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn reads(c: &CellResult) -> f64 {
    steady_mean(c, |d| d.read_mb_s)
}

fn writes(c: &CellResult) -> f64 {
    steady_mean(c, |d| d.write_mb_s)
}

fn tps(c: &CellResult) -> f64 {
    c.tps
}

/// The thread counts at which `variant` ran `step` in throughput cells.
pub fn threads_run(s: &Subject, variant: &str, step: &str) -> Vec<u32> {
    let mut t: Vec<u32> = s
        .results
        .cells
        .iter()
        .filter(|c| c.key.variant == variant && c.key.step == step)
        .map(|c| c.key.threads)
        .collect();
    t.sort();
    t.dedup();
    t
}

/// Ours for `pair` on `steps` at `threads` (every thread count run when empty), pooled over
/// them, by the measure asked for; `None` when the run has neither throughput cells nor (for
/// one step) counts there.
pub fn measured(
    s: &Subject,
    measure: Measure,
    pair: &Pair,
    steps: &[String],
    threads: &[u32],
) -> Option<(Ours, By)> {
    let mut cells: Vec<(String, u32)> = Vec::new();
    for step in steps {
        let run = threads_run(s, &pair.new, step);
        let at = run
            .iter()
            .copied()
            .filter(|t| threads.is_empty() || threads.contains(t));
        cells.extend(at.map(|t| (step.clone(), t)));
    }
    if !cells.is_empty() {
        let (metric, by): (fn(&CellResult) -> f64, By) = match measure {
            Measure::Throughput => (tps, By::Throughput),
            Measure::DeviceReadMbS => (reads, By::DeviceReads),
            Measure::DeviceWriteMbS => (writes, By::DeviceWrites),
        };
        let c = pooled(s, pair, &cells, metric)?;
        return Some((
            Ours {
                ratio: c.ratio,
                low: c.low,
                high: c.high,
            },
            by,
        ));
    }
    let [step] = steps else {
        return None;
    };
    if measure != Measure::Throughput {
        return None;
    }
    let ok = |v: &str| s.results.cost_for(v, step).filter(|c| c.ok);
    let (b, n) = (ok(&pair.base)?, ok(&pair.new)?);
    if n.ir_per_txn <= 0.0 {
        return None;
    }
    let p = b.ir_per_txn / n.ir_per_txn;
    // Two counts, each within its repeat tolerance.
    let tol = 2.0
        * match n.unit {
            CostUnit::Row => COST_WRITE_TOLERANCE,
            CostUnit::Transaction | CostUnit::Query | CostUnit::Statement => COST_TOLERANCE,
        };
    Some((
        Ours {
            ratio: p,
            low: p * (1.0 - tol),
            high: p * (1.0 + tol),
        },
        By::Instructions,
    ))
}

/// The base's highest throughput over `step`'s cells (medians per thread count), and the
/// thread counts at which its median reached `rate`.
pub fn rate_reached(s: &Subject, base: &str, step: &str, rate: f64) -> (f64, Vec<u32>) {
    let mut best = 0.0f64;
    let mut reached = Vec::new();
    for t in threads_run(s, base, step) {
        let mut xs: Vec<f64> = s
            .results
            .cells
            .iter()
            .filter(|c| c.ok && c.key.variant == base && c.key.step == step && c.key.threads == t)
            .map(|c| c.tps)
            .collect();
        if xs.is_empty() {
            continue;
        }
        xs.sort_by(f64::total_cmp);
        let median = xs[xs.len() / 2];
        best = best.max(median);
        if median >= rate {
            reached.push(t);
        }
    }
    (best, reached)
}
