//! A variant against the base: the ratio of medians (new/base) with a 95% bootstrap interval,
//! and whether that is a change worth calling (docs/statistics.md#change-verdicts-and-the-threshold).

use super::summary::median;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The interval excludes 1.0 and the change is beyond the threshold, upwards.
    Up,
    Down,
    /// Within noise or within the threshold.
    Same,
    /// Too few rounds to say (fewer than 3 per side: a bootstrap over two values is
    /// overconfident).
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// median(new) / median(base)
    pub ratio: f64,
    /// 95% bootstrap percentile interval of the ratio.
    pub low: f64,
    pub high: f64,
    pub verdict: Verdict,
}

/// Resamples for the bootstrap; 2000 gives stable 2.5/97.5 percentiles.
const RESAMPLES: usize = 2000;

/// Rounds per side below which no change is called.
pub const MIN_ROUNDS: usize = 3;

/// Compare `new` with `base` (values of the same metric, one per round). `threshold` is the
/// smallest relative change that is called (0.05 = 5%). Deterministic: the resampling is seeded.
pub fn compare(base: &[f64], new: &[f64], threshold: f64) -> Comparison {
    let ratio = median(new) / median(base);
    if base.len() < 2 || new.len() < 2 {
        return Comparison {
            ratio,
            low: f64::NAN,
            high: f64::NAN,
            verdict: Verdict::Unknown,
        };
    }
    let mut rng = SmallRng::seed_from_u64(0x5eed_b007);
    let mut ratios = Vec::with_capacity(RESAMPLES);
    let mut bs = vec![0.0; base.len()];
    let mut ns = vec![0.0; new.len()];
    for _ in 0..RESAMPLES {
        for x in bs.iter_mut() {
            *x = base[rng.random_range(0..base.len())];
        }
        for x in ns.iter_mut() {
            *x = new[rng.random_range(0..new.len())];
        }
        let r = median(&ns) / median(&bs);
        if r.is_finite() {
            ratios.push(r);
        }
    }
    ratios.sort_by(f64::total_cmp);
    let pick = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    let (low, high) = (pick(0.025), pick(0.975));
    let verdict = if base.len() < MIN_ROUNDS || new.len() < MIN_ROUNDS {
        Verdict::Unknown
    } else if low > 1.0 && ratio - 1.0 >= threshold {
        Verdict::Up
    } else if high < 1.0 && 1.0 - ratio >= threshold {
        Verdict::Down
    } else {
        Verdict::Same
    };
    Comparison {
        ratio,
        low,
        high,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_distributions_are_not_a_change() {
        let a = [100.0, 103.0, 97.0, 101.0, 99.0];
        let b = [99.0, 102.0, 98.0, 100.0, 104.0];
        let c = compare(&a, &b, 0.05);
        assert_eq!(c.verdict, Verdict::Same);
        assert!(c.low < 1.0 && c.high > 1.0, "{c:?}");
    }

    #[test]
    fn a_clear_drop_is_called() {
        let base = [100.0, 103.0, 97.0, 101.0, 99.0];
        let new = [85.0, 86.0, 84.0, 88.0, 83.0];
        let c = compare(&base, &new, 0.05);
        assert_eq!(c.verdict, Verdict::Down);
        assert!((c.ratio - 85.0 / 100.0).abs() < 1e-9);
        assert!(c.high < 1.0);
    }

    #[test]
    fn significant_but_small_is_not_called() {
        let base = [100.0, 100.1, 99.9, 100.0];
        let new = [102.0, 102.1, 101.9, 102.0];
        let c = compare(&base, &new, 0.05);
        assert!(c.low > 1.0);
        assert_eq!(c.verdict, Verdict::Same);
        assert_eq!(compare(&base, &new, 0.01).verdict, Verdict::Up);
    }

    #[test]
    fn fewer_than_three_rounds_is_unknown() {
        assert_eq!(compare(&[1.0], &[2.0], 0.05).verdict, Verdict::Unknown);
        let c = compare(&[1.0, 1.01], &[2.0, 2.01], 0.05);
        assert_eq!(c.verdict, Verdict::Unknown);
        assert!(c.low > 1.5, "the interval is still given: {c:?}");
    }
}
