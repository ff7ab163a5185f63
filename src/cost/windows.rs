//! What cost mode counts and how counts are checked: the plan of windows, each counted window,
//! the attempts, and the self-check of marginal estimates. Marginal estimates (instructions
//! between consecutive windows over the transactions between them) cancel whatever is fixed
//! per window and, since every block is the same work, must agree within [`TOLERANCE`];
//! otherwise the windows are measured once more, and a second disagreement is recorded as
//! `cost unstable` with every estimate (docs/cost-mode.md).

use anyhow::Result;

/// How far consecutive marginal estimates may differ (relative to the lower): stated once, in
/// the results schema that records what `unstable` means.
pub const TOLERANCE: f64 = crate::results::COST_TOLERANCE;

/// Measurements of a variant: the first, and one repeat when its estimates disagree.
pub const ATTEMPTS: u32 = 2;

/// What to count: warm-up transactions, then windows of growing transaction counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Transactions of fresh draws before the block's own untimed replay.
    pub warmup: u32,
    /// Transactions per window: the first is the block, the others whole multiples of it.
    pub windows: Vec<u32>,
}

impl Plan {
    /// Three or more windows, each larger than the one before and a multiple of the first.
    pub fn check(windows: &[u32]) -> std::result::Result<(), String> {
        let growing = windows.windows(2).all(|p| p[1] > p[0]);
        let block = windows.first().copied().unwrap_or(0);
        if windows.len() < 3 || !growing || block == 0 || windows.iter().any(|n| n % block != 0) {
            return Err(format!(
                "cost windows must be three or more growing transaction counts, each a multiple of the first (got {windows:?})"
            ));
        }
        Ok(())
    }

    pub(super) fn block(&self) -> u32 {
        self.windows[0]
    }
}

/// One counted window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// 1 for the first measurement, 2 for its repeat.
    pub attempt: u32,
    pub events: u32,
    /// Instructions of the serving thread during the window.
    pub ir: u64,
    /// That thread's number in callgrind's dumps (the same in every window of an attempt).
    pub thread: u32,
}

impl Window {
    /// The window as the results document records it.
    pub fn recorded(&self) -> crate::results::CostWindow {
        crate::results::CostWindow {
            attempt: self.attempt,
            events: self.events,
            ir: self.ir,
            thread: Some(self.thread),
        }
    }
}

/// A variant's cost on one workload.
#[derive(Clone, Debug, PartialEq)]
pub struct CostMeasurement {
    /// Every window of every attempt, in the order counted.
    pub windows: Vec<Window>,
    /// The last attempt's marginal estimates (instructions per transaction); for an Insert
    /// Benchmark write step, each attempt's instructions per row.
    pub estimates: Vec<f64>,
    /// Instructions per transaction between the last attempt's first and last windows (per
    /// row of a write step's last attempt).
    pub ir_per_txn: f64,
    /// The estimates disagreed beyond [`TOLERANCE`] in both attempts (a write step's two
    /// attempts, beyond its own tolerance).
    pub unstable: bool,
}

/// Up to [`ATTEMPTS`] attempts of `count` (one attempt's windows), until the estimates
/// agree; every window is kept, the estimates and instructions per transaction are the
/// last attempt's.
pub fn attempts(mut count: impl FnMut(u32) -> Result<Vec<Window>>) -> Result<CostMeasurement> {
    let mut windows = Vec::new();
    let mut estimates = Vec::new();
    let mut ir_per_txn = 0.0;
    for attempt in 1..=ATTEMPTS {
        let counted = count(attempt)?;
        estimates = marginal_estimates(&counted);
        let (first, end) = (&counted[0], &counted[counted.len() - 1]);
        ir_per_txn = (end.ir as f64 - first.ir as f64) / (end.events - first.events) as f64;
        windows.extend(counted);
        if agree(&estimates) {
            break;
        }
    }
    Ok(CostMeasurement {
        unstable: !agree(&estimates),
        windows,
        estimates,
        ir_per_txn,
    })
}

/// Instructions between consecutive windows over the transactions between them.
pub fn marginal_estimates(windows: &[Window]) -> Vec<f64> {
    windows
        .windows(2)
        .map(|p| (p[1].ir as f64 - p[0].ir as f64) / (p[1].events as f64 - p[0].events as f64))
        .collect()
}

/// True when the estimates span at most [`TOLERANCE`] of the lowest.
pub fn agree(estimates: &[f64]) -> bool {
    let lo = estimates.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = estimates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    lo > 0.0 && (hi - lo) / lo <= TOLERANCE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(events: u32, ir: u64) -> Window {
        Window {
            attempt: 1,
            events,
            ir,
            thread: 3,
        }
    }

    #[test]
    fn estimates_cancel_the_fixed_part() {
        let ws = [
            w(1000, 250_000 + 42_000_000),
            w(2000, 250_000 + 84_000_000),
            w(3000, 250_000 + 126_000_000),
        ];
        assert_eq!(marginal_estimates(&ws), vec![42_000.0, 42_000.0]);
        assert!(agree(&marginal_estimates(&ws)));
    }

    #[test]
    fn a_burst_in_one_window_disagrees() {
        // 10M extra instructions in the middle window only, as a new connection once carried.
        let ws = [
            w(1000, 42_000_000),
            w(2000, 94_000_000),
            w(3000, 126_000_000),
        ];
        assert!(!agree(&marginal_estimates(&ws)));
        // Within the tolerance: 0.15% apart agrees, 0.25% does not.
        assert!(agree(&[42_000.0, 42_063.0]));
        assert!(!agree(&[42_000.0, 42_105.0]));
    }

    #[test]
    fn plans_need_three_growing_windows() {
        assert!(Plan::check(&[1000, 2000, 3000]).is_ok());
        assert!(Plan::check(&[1000, 3000]).is_err());
        assert!(Plan::check(&[1000, 1000, 3000]).is_err());
        assert!(Plan::check(&[0, 1, 2]).is_err());
        assert!(Plan::check(&[1000, 1500, 3000]).is_err());
    }
}
