//! One latency distribution: an HDR histogram (for percentiles) plus the exact count, min,
//! max and sum that sysbench prints (its avg is sum/count, its min and max are exact).

pub use crate::results::bench::LatencySummary;
use hdrhistogram::Histogram;
use std::collections::BTreeMap;

/// Significant digits kept by the histograms: 0.1% resolution, well under the 5% changes
/// the reports look for (sysbench's buckets are 1.8% apart).
const SIGNIFICANT_DIGITS: u8 = 3;

/// Latencies in nanoseconds.
#[derive(Clone, Debug)]
pub struct Latencies {
    // Auto-resizing from 1 ns: memory grows with the largest value seen, not a fixed range,
    // so a thousand threads with microsecond latencies stay small.
    hist: Histogram<u64>,
    count: u64,
    sum_ns: u64,
    min_ns: u64,
    max_ns: u64,
}

impl Default for Latencies {
    fn default() -> Self {
        Self::new()
    }
}

impl Latencies {
    pub fn new() -> Self {
        Latencies {
            hist: Histogram::new(SIGNIFICANT_DIGITS).expect("valid histogram precision"),
            count: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    #[inline]
    pub fn record(&mut self, ns: u64) {
        // `record`, not `saturating_record`: clamping would win over auto-resizing.
        let _ = self.hist.record(ns.max(1));
        self.count += 1;
        self.sum_ns += ns;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn add(&mut self, other: &Latencies) {
        if other.count == 0 {
            return;
        }
        self.hist
            .add(&other.hist)
            .expect("auto-resizing histograms always merge");
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    pub fn reset(&mut self) {
        if self.count > 0 {
            self.hist.reset();
        }
        self.count = 0;
        self.sum_ns = 0;
        self.min_ns = u64::MAX;
        self.max_ns = 0;
    }

    pub fn count(&self) -> u64 {
        self.count
    }
    pub fn sum_ns(&self) -> u64 {
        self.sum_ns
    }
    pub fn min_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            ms(self.min_ns)
        }
    }
    pub fn max_ms(&self) -> f64 {
        ms(self.max_ns)
    }
    pub fn sum_ms(&self) -> f64 {
        ms(self.sum_ns)
    }
    pub fn avg_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ms() / self.count as f64
        }
    }

    /// The `p`th percentile (0 < p ≤ 100) in milliseconds; 0 when nothing was recorded.
    pub fn percentile_ms(&self, p: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        // The histogram's value is the top of a 0.1%-wide bucket; never report above the exact max.
        ms(self.hist.value_at_percentile(p).min(self.max_ns))
    }

    /// Recorded values grouped as (value ns, count), lowest first.
    pub fn recorded(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.hist
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
    }

    pub fn summary(&self, extra_percentiles: &[f64]) -> LatencySummary {
        let mut percentiles = BTreeMap::new();
        for &p in STANDARD_PERCENTILES.iter().chain(extra_percentiles) {
            percentiles.insert(percentile_key(p), self.percentile_ms(p));
        }
        LatencySummary {
            count: self.count,
            min: self.min_ms(),
            avg: self.avg_ms(),
            max: self.max_ms(),
            sum: self.sum_ms(),
            percentiles,
        }
    }
}

/// The percentiles psbench always reports (docs/sysbench-compat.md#output), besides `--percentile`.
pub const STANDARD_PERCENTILES: [f64; 4] = [50.0, 95.0, 99.0, 99.9];

/// Milliseconds from nanoseconds.
pub fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// "95", "99.9": the key of a percentile in JSON and the label in reports.
pub fn percentile_key(p: f64) -> String {
    format!("{p}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_min_max_avg_and_close_percentiles() {
        let mut l = Latencies::new();
        for us in 1..=1000u64 {
            l.record(us * 1000);
        }
        assert_eq!(l.count(), 1000);
        assert_eq!(l.min_ms(), 0.001);
        assert_eq!(l.max_ms(), 1.0);
        assert!((l.avg_ms() - 0.5005).abs() < 1e-9);
        let p95 = l.percentile_ms(95.0);
        assert!((p95 - 0.95).abs() < 0.95 * 0.002, "{p95}");
        assert_eq!(l.percentile_ms(100.0), 1.0);
    }

    #[test]
    fn merge_and_reset() {
        let mut a = Latencies::new();
        let mut b = Latencies::new();
        a.record(5_000);
        b.record(2_000_000_000); // 2 s: b's histogram grew, a's did not
        a.add(&b);
        assert_eq!(a.count(), 2);
        assert_eq!(a.max_ms(), 2000.0);
        assert_eq!(a.min_ms(), 0.005);
        a.reset();
        assert_eq!(a.count(), 0);
        assert_eq!(a.percentile_ms(50.0), 0.0);
        a.record(7_000);
        assert_eq!(a.min_ms(), 0.007);
        assert!((a.percentile_ms(50.0) - 0.007).abs() < 0.00002);
    }
}
