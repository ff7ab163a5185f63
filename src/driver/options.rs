//! What the user asked of a run, as sysbench spells it, and its validation.

use crate::error::usage;
pub use crate::results::bench::RunOptions;
use anyhow::Result;
use std::time::Duration;

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 1,
            time: 10.0,
            events: 0,
            warmup_time: 0.0,
            rate: 0.0,
            report_interval: 0,
            percentiles: vec![95.0],
            rand_seed: 0,
            histogram: false,
            json: None,
        }
    }
}

impl RunOptions {
    /// Reject what cannot run, with a one-line cause (exit code 2).
    pub fn validate(&self) -> Result<()> {
        self.validate_for(false)
    }

    /// As [`validate`](Self::validate); `self_ending`: the workload ends the run itself, so
    /// no time limit nor event count is needed.
    pub fn validate_for(&self, self_ending: bool) -> Result<()> {
        if self.threads < 1 {
            return Err(usage(format!(
                "--threads must be at least 1 (got {})",
                self.threads
            )));
        }
        super::limits::check(self.threads as u64)?;
        for (name, v) in [
            ("--time", self.time),
            ("--warmup-time", self.warmup_time),
            ("--rate", self.rate),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(usage(format!("{name} must be 0 or more (got {v})")));
            }
        }
        if self.events < 0 {
            return Err(usage(format!(
                "--events must be 0 or more (got {})",
                self.events
            )));
        }
        if self.report_interval < 0 {
            return Err(usage(format!(
                "--report-interval must be 0 or more whole seconds (got {})",
                self.report_interval
            )));
        }
        if self.time == 0.0 && self.events == 0 && !self_ending {
            return Err(usage(
                "--time=0 with --events=0 would run forever: give a time limit or an event count",
            ));
        }
        if self.percentiles.is_empty() {
            return Err(usage("--percentile needs at least one value"));
        }
        check_percentiles(&self.percentiles)
    }

    pub fn thread_count(&self) -> usize {
        self.threads.max(1) as usize
    }
    pub fn time_limit(&self) -> Option<Duration> {
        (self.time > 0.0).then(|| Duration::from_secs_f64(self.time))
    }
    pub fn event_limit(&self) -> Option<u64> {
        (self.events > 0).then_some(self.events as u64)
    }
    pub fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.warmup_time)
    }
    pub fn open_loop(&self) -> bool {
        self.rate > 0.0
    }
    /// The percentile shown in interval lines (sysbench has only one).
    pub fn interval_percentile(&self) -> f64 {
        self.percentiles.first().copied().unwrap_or(95.0)
    }
}

/// Every `--percentile` must be in (0, 100].
pub fn check_percentiles(percentiles: &[f64]) -> Result<()> {
    match percentiles.iter().find(|p| !(**p > 0.0 && **p <= 100.0)) {
        Some(p) => Err(usage(format!(
            "--percentile values must be in (0, 100] (got {p}); psbench always keeps its histograms"
        ))),
        None => Ok(()),
    }
}

/// The seed the run uses: the user's, or a fresh one from the OS when they gave 0.
pub fn resolve_seed(requested: u64) -> u64 {
    if requested != 0 {
        return requested;
    }
    loop {
        let s: u64 = rand::random();
        if s != 0 {
            return s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(o: RunOptions) -> String {
        let e = o.validate().unwrap_err();
        assert!(crate::error::is_usage(&e));
        e.to_string()
    }

    #[test]
    fn rejects_what_cannot_run() {
        assert!(RunOptions::default().validate().is_ok());
        assert!(err(RunOptions {
            threads: 0,
            ..Default::default()
        })
        .contains("--threads"));
        assert!(err(RunOptions {
            time: -1.0,
            ..Default::default()
        })
        .contains("--time"));
        assert!(err(RunOptions {
            time: 0.0,
            ..Default::default()
        })
        .contains("forever"));
        assert!(err(RunOptions {
            percentiles: vec![0.0],
            ..Default::default()
        })
        .contains("percentile"));
        let ok = RunOptions {
            time: 0.0,
            events: 5,
            ..Default::default()
        };
        assert!(ok.validate().is_ok());
    }

    #[test]
    fn seed_zero_means_random() {
        assert_eq!(resolve_seed(17), 17);
        assert_ne!(resolve_seed(0), 0);
    }
}
