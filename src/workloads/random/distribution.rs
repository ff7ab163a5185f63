//! The distributions behind sysbench's `default(a, b)` (docs/sysbench-compat.md#random-numbers).

use super::zipf::Zipf;
use super::Rng;

/// A `--rand-type` with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    Uniform,
    /// Mean of `iter` uniform draws (`--rand-spec-iter`).
    Gaussian {
        iter: u32,
    },
    /// sysbench 1.0.20's default: `res`% of draws uniform over the upper three quarters of
    /// a `pct`% window at the centre (the reused draw makes its lower quarter unreachable),
    /// the rest gaussian.
    Special {
        iter: u32,
        pct: u32,
        res: u32,
    },
    /// Mass at low values; `h` = `--rand-pareto-h`.
    Pareto {
        h: f64,
    },
    /// P(k) ∝ k^−exp over k = 1..n, hot keys are the lowest values.
    Zipfian {
        exp: f64,
    },
}

/// A distribution bound to an inclusive range [a, b], with its per-range constants
/// computed once (the zipfian normaliser would otherwise cost two logs per draw).
#[derive(Clone, Debug)]
pub struct RangeSampler {
    a: u32,
    b: u32,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Uniform,
    Gaussian {
        iter: u32,
        inv_iter: f64,
    },
    Special {
        iter: u32,
        inv_iter: f64,
        res_mult: f64,
        pct_mult: f64,
        pct_half_mult: f64,
    },
    Pareto {
        power: f64,
    },
    Zipfian(Zipf),
}

impl RangeSampler {
    /// Panics if a > b (callers build ranges from validated options).
    pub fn new(dist: Distribution, a: u32, b: u32) -> RangeSampler {
        assert!(a <= b, "empty range [{a}, {b}]");
        let kind = match dist {
            Distribution::Uniform => Kind::Uniform,
            Distribution::Gaussian { iter } => Kind::Gaussian {
                iter,
                inv_iter: 1.0 / f64::from(iter),
            },
            Distribution::Special { iter, pct, res } => Kind::Special {
                iter,
                inv_iter: 1.0 / f64::from(iter),
                res_mult: 100.0 / (100.0 - f64::from(res)),
                pct_mult: f64::from(pct) / 100.0,
                pct_half_mult: f64::from(pct) / 200.0,
            },
            Distribution::Pareto { h } => Kind::Pareto {
                power: h.ln() / (1.0 - h).ln(),
            },
            Distribution::Zipfian { exp } => Kind::Zipfian(Zipf::new(b - a + 1, exp)),
        };
        RangeSampler { a, b, kind }
    }

    pub fn low(&self) -> u32 {
        self.a
    }

    pub fn high(&self) -> u32 {
        self.b
    }

    /// One draw in [a, b]. Float-to-int conversions truncate, as sysbench's casts do.
    #[inline]
    pub fn sample(&self, rng: &mut Rng) -> u32 {
        let (a, b) = (self.a, self.b);
        let offset = match &self.kind {
            Kind::Uniform => (rng.uniform_f64() * (f64::from(b - a) + 1.0)) as u32,
            Kind::Gaussian { iter, inv_iter } => {
                let t = f64::from(b - a) + 1.0;
                let mut sum = 0.0;
                for _ in 0..*iter {
                    sum += rng.uniform_f64() * t;
                }
                (sum * inv_iter) as u32
            }
            Kind::Special {
                iter,
                inv_iter,
                res_mult,
                pct_mult,
                pct_half_mult,
            } => {
                let t = f64::from(b - a);
                let rnd = rng.uniform_f64();
                if rnd * t * res_mult < t {
                    let mut sum = 0.0;
                    for _ in 0..*iter {
                        sum += rng.uniform_f64();
                    }
                    (sum * t * inv_iter) as u32
                } else {
                    // The same `rnd` is reused here: that is what sysbench does, and why
                    // the lower part of the window is never drawn.
                    let d = t * pct_mult;
                    (rnd * (d + 1.0) + t / 2.0 - t * pct_half_mult) as u32
                }
            }
            Kind::Pareto { power } => {
                ((f64::from(b - a) + 1.0) * rng.uniform_f64().powf(*power)) as u32
            }
            Kind::Zipfian(z) => z.sample(rng) - 1,
        };
        (a + offset).min(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 200_000;

    fn draws(dist: Distribution) -> Vec<u32> {
        let s = RangeSampler::new(dist, 1, 10_000);
        let mut rng = Rng::seeded(42);
        (0..N).map(|_| s.sample(&mut rng)).collect()
    }

    fn share(v: &[u32], f: impl Fn(u32) -> bool) -> f64 {
        v.iter().filter(|&&x| f(x)).count() as f64 / v.len() as f64
    }

    #[test]
    fn special_puts_three_quarters_in_the_centre_window() {
        let v = draws(Distribution::Special {
            iter: 12,
            pct: 1,
            res: 75,
        });
        let hot = share(&v, |x| (4975..=5051).contains(&x));
        assert!((0.75..0.77).contains(&hot), "hot share {hot}");
        // The window is exactly [4975, 5051]: its neighbours are only gaussian-warm.
        let mut counts = vec![0u32; 10_001];
        for &x in &v {
            counts[x as usize] += 1;
        }
        let uniform = N as f64 / 10_000.0;
        let over3: Vec<usize> = (1..=10_000)
            .filter(|&i| f64::from(counts[i]) > 3.0 * uniform)
            .collect();
        assert_eq!(over3.first(), Some(&4975));
        assert_eq!(over3.last(), Some(&5051));
        assert_eq!(over3.len(), 77);
        assert!(v.iter().all(|&x| (1..10_000).contains(&x)));
    }

    #[test]
    fn gaussian_central_two_deciles_hold_about_077() {
        let v = draws(Distribution::Gaussian { iter: 12 });
        let central = share(&v, |x| (4001..=6000).contains(&x));
        assert!((0.755..0.78).contains(&central), "central share {central}");
    }

    #[test]
    fn pareto_masses_at_low_ids() {
        let v = draws(Distribution::Pareto { h: 0.2 });
        let first1 = share(&v, |x| x <= 100);
        let first10 = share(&v, |x| x <= 1000);
        let first20 = share(&v, |x| x <= 2000);
        assert!((0.51..0.545).contains(&first1), "first 1%: {first1}");
        assert!((0.71..0.74).contains(&first10), "first 10%: {first10}");
        assert!((0.785..0.815).contains(&first20), "first 20%: {first20}");
    }

    #[test]
    fn zipfian_lowest_ids_are_hottest() {
        let v = draws(Distribution::Zipfian { exp: 0.8 });
        let mut counts = vec![0u32; 10_001];
        for &x in &v {
            counts[x as usize] += 1;
        }
        assert!(counts[1] > counts[2] && counts[2] > counts[3] && counts[3] > counts[10]);
        // P(1)/P(2) = 2^0.8 = 1.74 for a zipfian with exponent 0.8.
        let ratio = f64::from(counts[1]) / f64::from(counts[2]);
        assert!((1.6..1.9).contains(&ratio), "P(1)/P(2) = {ratio}");
        assert!(share(&v, |x| x <= 1000) > 0.5);
        assert!(v.iter().all(|&x| (1..=10_000).contains(&x)));
    }

    #[test]
    fn uniform_deciles_are_flat() {
        let v = draws(Distribution::Uniform);
        for d in 0..10 {
            let s = share(&v, |x| (x - 1) / 1000 == d);
            assert!((0.095..0.105).contains(&s), "decile {d}: {s}");
        }
    }

    #[test]
    fn single_value_ranges_return_that_value() {
        let mut rng = Rng::seeded(3);
        for dist in [
            Distribution::Uniform,
            Distribution::Gaussian { iter: 12 },
            Distribution::Special {
                iter: 12,
                pct: 1,
                res: 75,
            },
            Distribution::Pareto { h: 0.2 },
            Distribution::Zipfian { exp: 0.8 },
        ] {
            let s = RangeSampler::new(dist, 7, 7);
            assert_eq!(s.sample(&mut rng), 7, "{dist:?}");
        }
    }
}
