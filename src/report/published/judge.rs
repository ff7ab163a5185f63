//! How a published figure is judged against ours, both as new / base: *agrees* when the
//! published value lies inside our 95% interval and the interval lies within ± the study's
//! threshold of it; *differs* when it lies outside (by how much, which way); *not resolved*
//! when it lies inside an interval wider than that; *not measured* with why. A range agrees
//! when our interval lies within it widened by the threshold and differs when our interval
//! lies wholly outside it; a ranking by its adjacent pairs; a threshold claim on both sides.

/// Our figure: a ratio new / base and its 95% interval (NaN ends: fewer than 2 rounds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ours {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Agrees,
    /// ours / published − 1 (for a range, from its nearer end).
    Differs(f64),
    NotResolved,
    NotMeasured(String),
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Differs(_) => "differs",
            Verdict::NotResolved => "not resolved here",
            Verdict::NotMeasured(_) => "not measured here",
        }
    }
}

fn bounded(o: &Ours) -> bool {
    o.low.is_finite() && o.high.is_finite()
}

/// Ours against one published ratio.
pub fn ratio(published: f64, ours: &Ours, threshold: f64) -> Verdict {
    if !bounded(ours) {
        return Verdict::NotResolved;
    }
    if published < ours.low || published > ours.high {
        return Verdict::Differs(ours.ratio / published - 1.0);
    }
    let close =
        ours.low >= published * (1.0 - threshold) && ours.high <= published * (1.0 + threshold);
    match close {
        true => Verdict::Agrees,
        false => Verdict::NotResolved,
    }
}

/// Ours against a published range [low, high].
pub fn range(low: f64, high: f64, ours: &Ours, threshold: f64) -> Verdict {
    if !bounded(ours) {
        return Verdict::NotResolved;
    }
    if ours.high < low {
        return Verdict::Differs(ours.ratio / low - 1.0);
    }
    if ours.low > high {
        return Verdict::Differs(ours.ratio / high - 1.0);
    }
    if ours.low >= low * (1.0 - threshold) && ours.high <= high * (1.0 + threshold) {
        Verdict::Agrees
    } else {
        Verdict::NotResolved
    }
}

/// "Slower beyond the threshold": agrees when our interval lies below 1 − threshold,
/// differs when it lies above it.
pub fn slower(ours: &Ours, threshold: f64) -> Verdict {
    if !bounded(ours) {
        return Verdict::NotResolved;
    }
    let line = 1.0 - threshold;
    if ours.high < line {
        Verdict::Agrees
    } else if ours.low > line {
        Verdict::Differs(ours.ratio / line - 1.0)
    } else {
        Verdict::NotResolved
    }
}

/// One verdict of many (a figure's points, a claim's two sides): any that differs makes it
/// differ, all agreeing agree; else not resolved. The first difference is kept.
pub fn all(verdicts: &[Verdict]) -> Verdict {
    if verdicts.is_empty() {
        return Verdict::NotMeasured("nothing of it was measured in this run".into());
    }
    if let Some(d) = verdicts.iter().find(|v| matches!(v, Verdict::Differs(_))) {
        return d.clone();
    }
    if verdicts.iter().all(|v| *v == Verdict::Agrees) {
        return Verdict::Agrees;
    }
    if verdicts
        .iter()
        .all(|v| matches!(v, Verdict::NotMeasured(_)))
    {
        return verdicts[0].clone();
    }
    Verdict::NotResolved
}

/// A ranking's adjacent pair: `a` over `b` (a's throughput over b's), where the published
/// order puts `a` costlier (`costlier`) or about the same (not `costlier`).
pub fn pair_in_order(costlier: bool, ours: &Ours, threshold: f64) -> Verdict {
    if !bounded(ours) {
        return Verdict::NotResolved;
    }
    if costlier {
        return if ours.high < 1.0 {
            Verdict::Agrees
        } else if ours.low > 1.0 {
            Verdict::Differs(ours.ratio - 1.0)
        } else {
            Verdict::NotResolved
        };
    }
    ratio(1.0, ours, threshold)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(ratio: f64, low: f64, high: f64) -> Ours {
        Ours { ratio, low, high }
    }

    #[test]
    fn each_verdict_of_a_ratio_and_a_range() {
        // Inside a narrow interval: agrees; outside it: differs, by how much; inside a wide
        // one: not resolved; one round: not resolved.
        assert_eq!(ratio(0.80, &o(0.81, 0.79, 0.83), 0.05), Verdict::Agrees);
        let Verdict::Differs(by) = ratio(0.80, &o(0.95, 0.93, 0.97), 0.05) else {
            panic!()
        };
        assert!((by - 0.1875).abs() < 1e-12);
        assert_eq!(
            ratio(0.80, &o(0.85, 0.70, 1.00), 0.05),
            Verdict::NotResolved
        );
        assert_eq!(
            ratio(0.80, &o(0.80, f64::NAN, f64::NAN), 0.05),
            Verdict::NotResolved
        );
        assert_eq!(
            range(1.11, 1.15, &o(1.12, 1.10, 1.14), 0.05),
            Verdict::Agrees
        );
        assert!(matches!(
            range(1.11, 1.15, &o(1.00, 0.98, 1.02), 0.05),
            Verdict::Differs(d) if d < 0.0
        ));
        assert_eq!(
            range(1.11, 1.15, &o(1.10, 0.95, 1.25), 0.05),
            Verdict::NotResolved
        );
    }

    #[test]
    fn a_slowdown_rankings_pairs_and_many_points() {
        assert_eq!(slower(&o(0.80, 0.78, 0.82), 0.05), Verdict::Agrees);
        assert!(matches!(
            slower(&o(1.0, 0.99, 1.01), 0.05),
            Verdict::Differs(_)
        ));
        assert_eq!(
            pair_in_order(true, &o(0.7, 0.6, 0.8), 0.05),
            Verdict::Agrees
        );
        assert!(matches!(
            pair_in_order(true, &o(1.3, 1.2, 1.4), 0.05),
            Verdict::Differs(_)
        ));
        assert_eq!(
            pair_in_order(false, &o(1.0, 0.99, 1.01), 0.05),
            Verdict::Agrees
        );
        assert_eq!(
            all(&[Verdict::Agrees, Verdict::NotResolved]),
            Verdict::NotResolved
        );
        assert!(matches!(
            all(&[Verdict::Agrees, Verdict::Differs(0.2), Verdict::NotResolved]),
            Verdict::Differs(_)
        ));
        assert_eq!(all(&[Verdict::Agrees, Verdict::Agrees]), Verdict::Agrees);
    }
}
