//! Bounded zipfian sampling by rejection-inversion (Hörmann & Derflinger 1996), the method
//! sysbench master and Apache Commons RNG use. Works for every exponent ≥ 0 because the
//! hat integral is H(x) = (x^(1−e) − 1)/(1−e), which has a limit (ln x) at e = 1.

use super::Rng;

#[derive(Clone, Debug)]
pub(super) struct Zipf {
    n: u32,
    exp: f64,
    h_integral_x1: f64,
    h_integral_n: f64,
    s: f64,
}

impl Zipf {
    pub(super) fn new(n: u32, exp: f64) -> Zipf {
        Zipf {
            n,
            exp,
            h_integral_x1: h_integral(1.5, exp) - 1.0,
            h_integral_n: h_integral(f64::from(n) + 0.5, exp),
            s: 2.0 - h_integral_inverse(h_integral(2.5, exp) - h(2.0, exp), exp),
        }
    }

    /// A value in [1, n]; P(k) ∝ k^−exp.
    pub(super) fn sample(&self, rng: &mut Rng) -> u32 {
        loop {
            let u =
                self.h_integral_n + rng.uniform_f64() * (self.h_integral_x1 - self.h_integral_n);
            let x = h_integral_inverse(u, self.exp);
            let k = ((x + 0.5) as u32).clamp(1, self.n);
            let kf = f64::from(k);
            // The first test is a cheap sufficient condition for the second.
            if kf - x <= self.s || u >= h_integral(kf + 0.5, self.exp) - h(kf, self.exp) {
                return k;
            }
        }
    }
}

fn h(x: f64, e: f64) -> f64 {
    (-e * x.ln()).exp()
}

fn h_integral(x: f64, e: f64) -> f64 {
    let log_x = x.ln();
    expm1_over_x((1.0 - e) * log_x) * log_x
}

fn h_integral_inverse(x: f64, e: f64) -> f64 {
    // Rounding can push t slightly below −1, where ln(1 + t) is undefined.
    let t = (x * (1.0 - e)).max(-1.0);
    (ln1p_over_x(t) * x).exp()
}

/// ln(1 + x)/x, by its Taylor series near 0.
fn ln1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// (e^x − 1)/x, by its Taylor series near 0.
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_zipf_pmf_on_a_small_range() {
        let (n, exp) = (5u32, 1.0);
        let z = Zipf::new(n, exp);
        let mut rng = Rng::seeded(9);
        let draws = 200_000;
        let mut counts = [0u32; 6];
        for _ in 0..draws {
            counts[z.sample(&mut rng) as usize] += 1;
        }
        let norm: f64 = (1..=n).map(|k| f64::from(k).powf(-exp)).sum();
        for k in 1..=n {
            let expected = f64::from(k).powf(-exp) / norm;
            let got = f64::from(counts[k as usize]) / f64::from(draws);
            assert!((got - expected).abs() < 0.006, "k={k}: {got} vs {expected}");
        }
    }

    #[test]
    fn exponent_zero_is_uniform() {
        let z = Zipf::new(4, 0.0);
        let mut rng = Rng::seeded(5);
        let mut counts = [0u32; 5];
        for _ in 0..100_000 {
            counts[z.sample(&mut rng) as usize] += 1;
        }
        for c in &counts[1..] {
            assert!((f64::from(*c) / 100_000.0 - 0.25).abs() < 0.01);
        }
    }
}
