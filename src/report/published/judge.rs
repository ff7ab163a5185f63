//! How a published figure is judged against ours, both as new / base: as an equivalence test.
//! Each figure is one band (its value widened by its tolerance, its range so widened, or one
//! side of a one-sided claim), and our 95% interval is read against it: *agrees* when the
//! interval lies inside the band, *differs* when it lies wholly outside (by how much, from the
//! band's nearer end), *not resolved* otherwise; *not measured* with why, and *shown* for the
//! base's own absolute value, which nothing is compared with.

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
    /// ours / the band's nearer end − 1.
    Differs(f64),
    NotResolved,
    NotMeasured(String),
    /// The base's own absolute value: shown beside ours, not judged.
    Shown,
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Differs(_) => "differs",
            Verdict::NotResolved => "not resolved here",
            Verdict::NotMeasured(_) => "not measured here",
            Verdict::Shown => "shown, the base's own",
        }
    }
}

/// The ratios a figure allows, new / base; an open side is infinite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    pub low: f64,
    pub high: f64,
}

impl Band {
    /// "about v": v × (1 ± tolerance).
    pub fn about(v: f64, tol: f64) -> Band {
        Band {
            low: v * (1.0 - tol),
            high: v * (1.0 + tol),
        }
    }

    /// "between a and b", each end widened by the tolerance.
    pub fn between(a: f64, b: f64, tol: f64) -> Band {
        Band {
            low: a.min(b) * (1.0 - tol),
            high: a.max(b) * (1.0 + tol),
        }
    }

    /// "at most v" ("no faster than", "costs at most"): up to v × (1 + tolerance).
    pub fn at_most(v: f64, tol: f64) -> Band {
        Band {
            low: f64::NEG_INFINITY,
            high: v * (1.0 + tol),
        }
    }

    /// "at least v" ("no slower than"): from v × (1 − tolerance).
    pub fn at_least(v: f64, tol: f64) -> Band {
        Band {
            low: v * (1.0 - tol),
            high: f64::INFINITY,
        }
    }

    /// "slower" with no figure: a drop beyond the tolerance, up to 1 − tolerance.
    pub fn slower(tol: f64) -> Band {
        Band {
            low: f64::NEG_INFINITY,
            high: 1.0 - tol,
        }
    }

    /// The band as the report says it.
    pub fn text(&self) -> String {
        match (self.low.is_finite(), self.high.is_finite()) {
            (true, true) => format!("{:.3} to {:.3}", self.low, self.high),
            (false, true) => format!("≤ {:.3}", self.high),
            (true, false) => format!("≥ {:.3}", self.low),
            (false, false) => "any".into(),
        }
    }
}

/// Ours against one band.
pub fn band(b: &Band, ours: &Ours) -> Verdict {
    if !(ours.low.is_finite() && ours.high.is_finite()) {
        return Verdict::NotResolved;
    }
    if ours.high < b.low {
        return Verdict::Differs(ours.ratio / b.low - 1.0);
    }
    if ours.low > b.high {
        return Verdict::Differs(ours.ratio / b.high - 1.0);
    }
    if ours.low >= b.low && ours.high <= b.high {
        Verdict::Agrees
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

#[cfg(test)]
mod tests {
    use super::*;

    fn o(ratio: f64, low: f64, high: f64) -> Ours {
        Ours { ratio, low, high }
    }

    #[test]
    fn the_equivalence_band_agrees_inside_differs_wholly_outside_else_is_not_resolved() {
        let b = Band::about(0.80, 0.05); // 0.76 to 0.84
        assert_eq!(band(&b, &o(0.81, 0.79, 0.83)), Verdict::Agrees);
        // Published just outside a narrow interval, yet the interval inside its band: agrees.
        assert_eq!(band(&b, &o(0.82, 0.815, 0.825)), Verdict::Agrees);
        let Verdict::Differs(by) = band(&b, &o(0.95, 0.93, 0.97)) else {
            panic!()
        };
        assert!((by - (0.95 / 0.84 - 1.0)).abs() < 1e-12);
        assert!(matches!(band(&b, &o(0.70, 0.69, 0.71)), Verdict::Differs(d) if d < 0.0));
        // Straddling an end, or wider than the band: not resolved; one round: not resolved.
        assert_eq!(band(&b, &o(0.84, 0.83, 0.85)), Verdict::NotResolved);
        assert_eq!(band(&b, &o(0.80, 0.70, 0.90)), Verdict::NotResolved);
        assert_eq!(band(&b, &o(0.80, f64::NAN, f64::NAN)), Verdict::NotResolved);
        let r = Band::between(1.11, 1.15, 0.0);
        assert_eq!(band(&r, &o(1.12, 1.11, 1.14)), Verdict::Agrees);
        assert!(matches!(band(&r, &o(1.0, 0.98, 1.02)), Verdict::Differs(d) if d < 0.0));
    }

    #[test]
    fn a_one_sided_claim_is_borne_out_by_anything_on_its_side() {
        // "No improvement" (at most 1.0): a slower 8.0 agrees, a faster one differs.
        let no_faster = Band::at_most(1.0, 0.05);
        assert_eq!(band(&no_faster, &o(0.80, 0.78, 0.82)), Verdict::Agrees);
        assert_eq!(band(&no_faster, &o(1.04, 1.03, 1.05)), Verdict::Agrees);
        assert!(matches!(
            band(&no_faster, &o(1.20, 1.15, 1.25)),
            Verdict::Differs(d) if d > 0.0
        ));
        // "No slower below N threads": a resolved 1% drop agrees; 10% differs.
        let no_slower = Band::at_least(1.0, 0.05);
        assert_eq!(band(&no_slower, &o(0.99, 0.985, 0.995)), Verdict::Agrees);
        assert_eq!(band(&no_slower, &o(1.30, 1.2, 1.4)), Verdict::Agrees);
        assert!(matches!(
            band(&no_slower, &o(0.90, 0.89, 0.91)),
            Verdict::Differs(_)
        ));
        // "Slower from N": a drop beyond the threshold agrees; none differs.
        let slower = Band::slower(0.05);
        assert_eq!(band(&slower, &o(0.80, 0.78, 0.82)), Verdict::Agrees);
        assert!(matches!(
            band(&slower, &o(1.0, 0.99, 1.01)),
            Verdict::Differs(_)
        ));
        assert_eq!(band(&slower, &o(0.95, 0.93, 0.97)), Verdict::NotResolved);
        assert_eq!(no_faster.text(), "≤ 1.050");
    }

    #[test]
    fn many_points_make_one_verdict() {
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
