//! A variant against the base: the ratio new/base with a 95% interval, and whether that is a
//! change worth calling (docs/statistics.md#ratios-and-intervals).
//!
//! Within a study the rounds are interleaved, so each round's variant and base ran side by
//! side: the ratio is formed within each round and the interval is a Student t interval on
//! the mean of the per-round log ratios ([`paired`]); drift between rounds cancels. Two
//! separate documents (`psbench compare A B`) have no such pairing: Welch's t interval on the
//! difference of mean logs ([`unpaired`]). Both were chosen by calibration on simulated
//! studies with this host's drift (tests/suite/stats_calibration.rs): a bootstrap over 3 rounds
//! is close to [min, max] and excludes 1.0 far more often than 5% when nothing changed.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// What a comparison can say about new / base, whatever the metric: the report words it for
/// the metric (faster or slower for throughput, costs more or less for a cost), never
/// anything else (docs/statistics.md#change-verdicts-and-the-threshold).
///
/// Ends are inclusive for *within*: an interval touching 1 ± threshold is within it. So a
/// change is *above* or *below* only when the ratio is strictly beyond the threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The ratio is above 1 + threshold and the whole interval above 1.0.
    #[serde(alias = "up")]
    Above,
    /// The ratio is below 1 − threshold and the whole interval below 1.0.
    #[serde(alias = "down")]
    Below,
    /// The whole interval lies in [1 − threshold, 1 + threshold]: resolved, no change
    /// worth calling.
    Within,
    /// Anything else: an interval reaching past the threshold without a change called, or
    /// fewer than 3 rounds, or no interval. The former "same" said this or *within*
    /// without telling which, so it loads as this, the claim it can support.
    #[serde(alias = "same", alias = "unknown")]
    NotResolved,
}

impl Verdict {
    /// The verdict on `ratio` with its interval [`low`, `high`] over `rounds` rounds.
    pub fn of(rounds: usize, ratio: f64, low: f64, high: f64, threshold: f64) -> Verdict {
        if rounds < MIN_ROUNDS || !(ratio.is_finite() && low.is_finite() && high.is_finite()) {
            Verdict::NotResolved
        } else if low >= 1.0 - threshold && high <= 1.0 + threshold {
            Verdict::Within
        } else if low > 1.0 && ratio > 1.0 + threshold {
            Verdict::Above
        } else if high < 1.0 && ratio < 1.0 - threshold {
            Verdict::Below
        } else {
            Verdict::NotResolved
        }
    }

    /// A change beyond the threshold was called, either way.
    pub fn called(self) -> bool {
        matches!(self, Verdict::Above | Verdict::Below)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// new / base: the geometric mean of the per-round ratios (paired), or the ratio of the
    /// geometric means (unpaired).
    pub ratio: f64,
    /// 95% interval of the ratio; NaN with fewer than 2 rounds.
    pub low: f64,
    pub high: f64,
    pub verdict: Verdict,
    /// Rounds that entered: pairs (paired), the smaller side (unpaired).
    pub rounds: usize,
    /// Standard deviation of the per-round log ratios (paired), or the standard error of the
    /// log ratio times √rounds (unpaired): about the relative spread of one round's ratio.
    pub spread: f64,
}

/// Rounds below which no change is called: an interval from two values says little.
pub const MIN_ROUNDS: usize = 3;

/// Confidence of the interval, two-sided.
const LEVEL: f64 = 0.95;

/// The power the round count a reader is told about aims at.
const POWER: f64 = 0.8;

/// The t quantile with `df` degrees of freedom.
pub(super) fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .map(|t| t.inverse_cdf(p))
        .unwrap_or(f64::NAN)
}

pub(super) fn mean_and_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = if x.len() > 1 {
        x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var)
}

/// The 95% Student t interval of the mean of `x`; `None` below two values.
pub fn t_interval(x: &[f64]) -> Option<(f64, f64)> {
    if x.len() < 2 {
        return None;
    }
    let (mean, var) = mean_and_var(x);
    let h = t_quantile(0.5 + LEVEL / 2.0, (x.len() - 1) as f64) * (var / x.len() as f64).sqrt();
    Some((mean - h, mean + h))
}

/// From a mean log ratio, its standard error and degrees of freedom.
fn from_logs(
    mean: f64,
    se: f64,
    df: f64,
    rounds: usize,
    spread: f64,
    threshold: f64,
) -> Comparison {
    let ratio = mean.exp();
    let (low, high) = if rounds < 2 || !se.is_finite() {
        (f64::NAN, f64::NAN)
    } else if se == 0.0 {
        (ratio, ratio)
    } else {
        let h = t_quantile(0.5 + LEVEL / 2.0, df) * se;
        ((mean - h).exp(), (mean + h).exp())
    };
    Comparison {
        ratio,
        low,
        high,
        verdict: Verdict::of(rounds, ratio, low, high, threshold),
        rounds,
        spread,
    }
}

/// Compare within rounds: `pairs` holds (base, new) of one metric per round, both sides
/// from the same round. `threshold` is the smallest relative change called (0.05 = 5%).
/// Pairs with a value that is not positive are left out (a ratio needs both).
pub fn paired(pairs: &[(f64, f64)], threshold: f64) -> Comparison {
    let logs: Vec<f64> = pairs
        .iter()
        .filter(|(b, n)| *b > 0.0 && *n > 0.0 && b.is_finite() && n.is_finite())
        .map(|(b, n)| (n / b).ln())
        .collect();
    if logs.is_empty() {
        return from_logs(f64::NAN, f64::NAN, 0.0, 0, f64::NAN, threshold);
    }
    let (mean, var) = mean_and_var(&logs);
    let n = logs.len();
    let sd = var.sqrt();
    from_logs(
        mean,
        sd / (n as f64).sqrt(),
        (n - 1) as f64,
        n,
        if n > 1 { sd } else { f64::NAN },
        threshold,
    )
}

/// Compare two independent samples (rounds of different studies): Welch's t interval on
/// the difference of the mean logs.
pub fn unpaired(base: &[f64], new: &[f64], threshold: f64) -> Comparison {
    let logs = |x: &[f64]| -> Vec<f64> {
        x.iter()
            .filter(|v| **v > 0.0 && v.is_finite())
            .map(|v| v.ln())
            .collect()
    };
    let (b, n) = (logs(base), logs(new));
    if b.is_empty() || n.is_empty() {
        return from_logs(f64::NAN, f64::NAN, 0.0, 0, f64::NAN, threshold);
    }
    let ((mb, vb), (mn, vn)) = (mean_and_var(&b), mean_and_var(&n));
    let rounds = b.len().min(n.len());
    let (qb, qn) = (vb / b.len() as f64, vn / n.len() as f64);
    let se = (qb + qn).sqrt();
    // Welch–Satterthwaite degrees of freedom.
    let df = if qb + qn > 0.0 && rounds >= 2 {
        (qb + qn).powi(2)
            / (qb.powi(2) / (b.len() - 1).max(1) as f64 + qn.powi(2) / (n.len() - 1).max(1) as f64)
    } else {
        (rounds.max(2) - 1) as f64
    };
    from_logs(
        mn - mb,
        if rounds >= 2 { se } else { f64::NAN },
        df,
        rounds,
        if rounds >= 2 {
            se * (rounds as f64).sqrt()
        } else {
            f64::NAN
        },
        threshold,
    )
}

/// The paired rounds that would resolve a change of `change` (0.05 = 5%) at `spread` (the
/// standard deviation of per-round log ratios): the fewest rounds n for which a true change
/// of that size has an 80% chance that its 95% interval excludes 1.0,
/// (t(0.975, n−1) + t(0.8, n−1)) · spread / √n ≤ ln(1 + change). `None` beyond 1,000 rounds
/// or when the spread is unknown.
pub fn rounds_to_resolve(spread: f64, change: f64) -> Option<usize> {
    if !spread.is_finite() || spread < 0.0 || change <= 0.0 {
        return None;
    }
    let delta = (1.0 + change).ln();
    (MIN_ROUNDS..=1000).find(|&n| {
        let df = (n - 1) as f64;
        let need = t_quantile(0.5 + LEVEL / 2.0, df) + t_quantile(POWER, df);
        need * spread / (n as f64).sqrt() <= delta
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(base: &[f64], new: &[f64]) -> Vec<(f64, f64)> {
        base.iter().copied().zip(new.iter().copied()).collect()
    }

    #[test]
    fn identical_distributions_are_not_a_change() {
        let c = paired(
            &pairs(
                &[100.0, 103.0, 97.0, 101.0, 99.0],
                &[99.0, 102.0, 98.0, 100.0, 104.0],
            ),
            0.05,
        );
        assert!(!c.verdict.called(), "{c:?}");
        assert!(c.low < 1.0 && c.high > 1.0, "{c:?}");
        assert_eq!(c.rounds, 5);
    }

    #[test]
    fn drift_shared_within_rounds_cancels() {
        // Throughput falls by a quarter over the study; the variant is 8% slower in every round.
        let base = [100.0, 92.0, 85.0, 80.0, 75.0];
        let new: Vec<f64> = base.iter().map(|b| b * 0.92).collect();
        let c = paired(&pairs(&base, &new), 0.05);
        assert_eq!(c.verdict, Verdict::Below);
        assert!((c.ratio - 0.92).abs() < 1e-9, "{c:?}");
        // Unpaired, the drift swamps the same 8%: nothing is resolved either way.
        assert_eq!(unpaired(&base, &new, 0.05).verdict, Verdict::NotResolved);
    }

    #[test]
    fn a_clear_drop_is_called_either_way() {
        let base = [100.0, 103.0, 97.0, 101.0, 99.0];
        let new = [85.0, 86.0, 84.0, 88.0, 83.0];
        let c = paired(&pairs(&base, &new), 0.05);
        assert_eq!(c.verdict, Verdict::Below);
        assert!(c.high < 1.0);
        let u = unpaired(&base, &new, 0.05);
        assert_eq!(u.verdict, Verdict::Below);
        assert!(u.high < 1.0 && u.low < u.ratio, "{u:?}");
    }

    #[test]
    fn significant_but_small_is_within_the_threshold() {
        let base = [100.0, 100.1, 99.9, 100.0];
        let new = [102.0, 102.2, 101.9, 102.0];
        let c = paired(&pairs(&base, &new), 0.05);
        assert!(c.low > 1.0);
        assert_eq!(c.verdict, Verdict::Within);
        assert_eq!(paired(&pairs(&base, &new), 0.01).verdict, Verdict::Above);
    }

    #[test]
    fn fewer_than_three_rounds_is_not_resolved() {
        assert_eq!(paired(&[(1.0, 2.0)], 0.05).verdict, Verdict::NotResolved);
        assert!(paired(&[(1.0, 2.0)], 0.05).low.is_nan());
        let c = paired(&[(1.0, 2.0), (1.01, 2.0)], 0.05);
        assert_eq!(c.verdict, Verdict::NotResolved);
        assert!(
            c.low > 1.0 && c.high.is_finite(),
            "the interval is still given: {c:?}"
        );
        assert_eq!(unpaired(&[1.0], &[2.0], 0.05).verdict, Verdict::NotResolved);
    }

    #[test]
    fn the_t_interval_has_its_textbook_width() {
        // Log ratios 0, 0.1, 0.2: mean 0.1, sd 0.1, se 0.1/√3, t(0.975, 2) = 4.303.
        let p = [(1.0, 1.0), (1.0, 0.1f64.exp()), (1.0, 0.2f64.exp())];
        let c = paired(&p, 0.05);
        let h = 4.302_652_7 * 0.1 / 3f64.sqrt();
        assert!(((c.low.ln()) - (0.1 - h)).abs() < 1e-6, "{c:?}");
        assert!(((c.high.ln()) - (0.1 + h)).abs() < 1e-6, "{c:?}");
        assert!((c.spread - 0.1).abs() < 1e-12);
    }

    #[test]
    fn rounds_needed_grow_with_the_spread() {
        // By hand from t tables: at s = 2.5%, n = 5 gives (2.776 + 0.941) · 0.025 / √5 = 0.042
        // ≤ ln 1.05 = 0.0488 and n = 4 does not; at s = 5%, n = 11 and not 10.
        assert_eq!(rounds_to_resolve(0.025, 0.05), Some(5));
        assert_eq!(rounds_to_resolve(0.05, 0.05), Some(11));
        assert_eq!(rounds_to_resolve(0.0, 0.05), Some(MIN_ROUNDS));
        assert_eq!(rounds_to_resolve(f64::NAN, 0.05), None);
        assert_eq!(rounds_to_resolve(5.0, 0.05), None);
    }

    #[test]
    fn boundary_cases_get_the_verdict_the_rule_says() {
        use Verdict::*;
        let t = 0.05;
        let (lo_edge, hi_edge) = (1.0 - t, 1.0 + t);
        // (what, rounds, ratio, low, high, verdict)
        let table: [(&str, usize, f64, f64, f64, Verdict); 16] = [
            (
                "inside the threshold, spanning 1.0",
                5,
                1.0,
                0.97,
                1.03,
                Within,
            ),
            (
                "touching the upper threshold",
                5,
                1.0,
                0.97,
                hi_edge,
                Within,
            ),
            (
                "touching the lower threshold",
                5,
                1.0,
                lo_edge,
                1.03,
                Within,
            ),
            ("touching both thresholds", 5, 1.0, lo_edge, hi_edge, Within),
            (
                "just past the upper threshold",
                5,
                1.0,
                0.97,
                hi_edge + 1e-9,
                NotResolved,
            ),
            (
                "excluding 1.0, inside the threshold",
                5,
                1.02,
                1.01,
                1.03,
                Within,
            ),
            ("excluding 1.0 below, inside", 5, 0.98, 0.97, 0.99, Within),
            (
                "excluding 1.0, partly beyond, ratio inside",
                5,
                1.04,
                1.01,
                1.07,
                NotResolved,
            ),
            (
                "excluding 1.0, partly beyond, ratio beyond",
                5,
                1.06,
                1.02,
                1.10,
                Above,
            ),
            (
                "excluding 1.0 below, ratio beyond",
                5,
                0.90,
                0.85,
                0.96,
                Below,
            ),
            (
                "ratio exactly at the threshold",
                5,
                hi_edge,
                1.02,
                1.08,
                NotResolved,
            ),
            ("wide", 3, 0.869, 0.342, 2.210, NotResolved),
            ("zero-width at 1.0", 5, 1.0, 1.0, 1.0, Within),
            (
                "zero-width beyond the threshold",
                5,
                1.10,
                1.10,
                1.10,
                Above,
            ),
            ("zero-width below the threshold", 5, 0.80, 0.80, 0.80, Below),
            (
                "fewer than 3 rounds, tight",
                2,
                0.80,
                0.79,
                0.81,
                NotResolved,
            ),
        ];
        for (what, rounds, ratio, low, high, want) in table {
            assert_eq!(
                Verdict::of(rounds, ratio, low, high, t),
                want,
                "{what}: {ratio} [{low}, {high}] over {rounds} rounds"
            );
        }
        assert_eq!(Verdict::of(5, 1.2, f64::NAN, f64::NAN, t), NotResolved);
        // Zero-width intervals as the paired interval makes them: identical ratios.
        let same = |q: f64| paired(&[(10.0, 10.0 * q); 3], t).verdict;
        assert_eq!(same(1.0), Within);
        assert_eq!(same(1.2), Above);
        assert_eq!(same(0.8), Below);
    }

    #[test]
    fn verdicts_written_before_load_as_what_they_can_support() {
        let load = |s: &str| serde_json::from_str::<Verdict>(&format!("\"{s}\"")).unwrap();
        assert_eq!(load("up"), Verdict::Above);
        assert_eq!(load("down"), Verdict::Below);
        assert_eq!(load("same"), Verdict::NotResolved);
        assert_eq!(load("unknown"), Verdict::NotResolved);
        for v in [
            Verdict::Above,
            Verdict::Below,
            Verdict::Within,
            Verdict::NotResolved,
        ] {
            assert_eq!(
                load(serde_json::to_string(&v).unwrap().trim_matches('"')),
                v
            );
        }
        assert_eq!(
            serde_json::to_string(&Verdict::NotResolved).unwrap(),
            "\"not_resolved\""
        );
    }
}
