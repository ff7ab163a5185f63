//! Student's t test between two independent samples with a pooled variance, for the change
//! points of a series (the two sides of a candidate change): the test Apache Otava uses. Welch's
//! unpooled test was tried first and called a change on a noise-only series that Otava and
//! this test do not: a short stretch of low points with a smaller spread than its neighbours
//! (docs/history.md#against-apache-otava).

use super::compare::mean_and_var;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The test between two samples: difference of means (b − a), its standard error, degrees of
/// freedom and two-sided p-value.
pub struct TTest {
    pub diff: f64,
    pub se: f64,
    pub df: f64,
    pub p: f64,
}

/// A side of one point adds nothing to the pooled variance and one to the degrees of
/// freedom's count (as scipy's ttest_ind, which Otava calls): a change one point before the
/// end of a series can be tested. Two points in all cannot.
pub fn student(a: &[f64], b: &[f64]) -> TTest {
    let ((ma, va), (mb, vb)) = (mean_and_var(a), mean_and_var(b));
    let (va, vb) = (
        if a.len() < 2 { 0.0 } else { va },
        if b.len() < 2 { 0.0 } else { vb },
    );
    let diff = mb - ma;
    if a.is_empty() || b.is_empty() || a.len() + b.len() < 3 {
        return TTest {
            diff,
            se: f64::NAN,
            df: f64::NAN,
            p: f64::NAN,
        };
    }
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let df = na + nb - 2.0;
    let pooled = ((na - 1.0) * va + (nb - 1.0) * vb) / df;
    let se = (pooled * (1.0 / na + 1.0 / nb)).sqrt();
    if se == 0.0 {
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        return TTest { diff, se, df, p };
    }
    let t = diff / se;
    let p = StudentsT::new(0.0, 1.0, df)
        .map(|d| 2.0 * (1.0 - d.cdf(t.abs())))
        .unwrap_or(f64::NAN);
    TTest { diff, se, df, p }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_matches_a_worked_example() {
        // By hand: means 2 and 5, variances 1 and 0.5, pooled variance 2/3, t = 5.03 on 6
        // degrees of freedom, p = 0.0024 (scipy.stats.ttest_ind gives 0.002378).
        let t = student(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0, 5.0, 5.0]);
        assert!((t.diff - 3.0).abs() < 1e-12);
        assert_eq!(t.df, 6.0);
        assert!((t.diff / t.se - 5.0312).abs() < 1e-3, "{}", t.diff / t.se);
        assert!((t.p - 0.002378).abs() < 1e-5, "{}", t.p);
        assert!(student(&[1.0], &[2.0]).p.is_nan());
        // One point against three: pooled from the three alone (variance 1), 2 degrees of
        // freedom, se = sqrt(1/3 + 1), t = 4 / 1.1547 = 3.4641, p = 0.07418 (scipy 1.x's
        // ttest_ind([1, 2, 3], [6]) in Otava's environment gives the same).
        let one = student(&[1.0, 2.0, 3.0], &[6.0]);
        assert_eq!(one.df, 2.0);
        assert!(
            (one.diff / one.se - 3.4641).abs() < 1e-3,
            "{}",
            one.diff / one.se
        );
        assert!((one.p - 0.07418).abs() < 1e-4, "{}", one.p);
    }
}
