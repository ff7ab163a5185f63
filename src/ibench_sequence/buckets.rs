//! The original client's response-time histogram (docs/insert-benchmark.md#what-each-step-reports): statements per power-of-4
//! bucket from ≤256 µs to >16 s, plus the maximum, so its tables can be drawn from ours.

use crate::driver::Latencies;
use crate::results::insert_benchmark::{OriginalHistogram, BOUNDS_US};

impl OriginalHistogram {
    pub fn of(l: &Latencies) -> Self {
        let mut counts = [0u64; 10];
        for (ns, n) in l.recorded() {
            let us = ns / 1000;
            let i = BOUNDS_US.iter().position(|&b| us <= b).unwrap_or(9);
            counts[i] += n;
        }
        OriginalHistogram {
            counts,
            max_s: if l.count() > 0 {
                l.max_ms() / 1000.0
            } else {
                0.0
            },
        }
    }

    /// Percent of statements per bucket, as the original prints them.
    pub fn percents(&self) -> [f64; 10] {
        let total: u64 = self.counts.iter().sum();
        self.counts.map(|c| {
            if total > 0 {
                100.0 * c as f64 / total as f64
            } else {
                0.0
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_land_in_the_originals_buckets() {
        let mut l = Latencies::new();
        for us in [
            100, 256, 900, 3_000, 20_000, 70_000, 900_000, 2_000_000, 20_000_000,
        ] {
            l.record(us * 1000);
        }
        let h = OriginalHistogram::of(&l);
        assert_eq!(h.counts, [2, 1, 1, 0, 1, 1, 1, 1, 0, 1]);
        assert!((h.max_s - 20.0).abs() < 0.05, "{}", h.max_s);
        assert!((h.percents().iter().sum::<f64>() - 100.0).abs() < 1e-9);
    }
}
