//! Welch's t test between two independent samples, for the change points of a series (the
//! two sides of a candidate change).

use super::compare::mean_and_var;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Welch's t test between two samples: difference of means (b − a), its standard error,
/// degrees of freedom and two-sided p-value.
pub struct Welch {
    pub diff: f64,
    pub se: f64,
    pub df: f64,
    pub p: f64,
}

pub fn welch(a: &[f64], b: &[f64]) -> Welch {
    let ((ma, va), (mb, vb)) = (mean_and_var(a), mean_and_var(b));
    let diff = mb - ma;
    if a.len() < 2 || b.len() < 2 {
        return Welch {
            diff,
            se: f64::NAN,
            df: f64::NAN,
            p: f64::NAN,
        };
    }
    let (qa, qb) = (va / a.len() as f64, vb / b.len() as f64);
    let se = (qa + qb).sqrt();
    if se == 0.0 {
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        return Welch {
            diff,
            se,
            df: (a.len() + b.len() - 2) as f64,
            p,
        };
    }
    let df =
        (qa + qb).powi(2) / (qa.powi(2) / (a.len() - 1) as f64 + qb.powi(2) / (b.len() - 1) as f64);
    let t = diff / se;
    let p = StudentsT::new(0.0, 1.0, df)
        .map(|d| 2.0 * (1.0 - d.cdf(t.abs())))
        .unwrap_or(f64::NAN);
    Welch { diff, se, df, p }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_matches_a_worked_example() {
        // By hand: means 2 and 5, variances 1 and 0.5, t = 4.56 on 3.23 degrees of freedom,
        // p = 0.017.
        let t = welch(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0, 5.0, 5.0]);
        assert!((t.diff - 3.0).abs() < 1e-12);
        assert!((t.df - 3.23).abs() < 0.01, "{}", t.df);
        assert!(t.p > 0.014 && t.p < 0.020, "{}", t.p);
        assert!(welch(&[1.0], &[2.0]).p.is_nan());
    }
}
