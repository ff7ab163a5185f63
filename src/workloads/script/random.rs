//! pgbench's random distributions (pgbench.c getrand, getExponentialRand, getGaussianRand,
//! getZipfianRand), drawing from a client's `cs_func_rs` or a thread's `ts_choose_rs`.
//! Parameters are checked by the caller, with pgbench's messages.

use super::prng::PgPrng;

pub const MIN_GAUSSIAN_PARAM: f64 = 2.0;
pub const MIN_ZIPFIAN_PARAM: f64 = 1.001;
pub const MAX_ZIPFIAN_PARAM: f64 = 1000.0;

/// Uniform over [min, max]; `max - min` must not overflow (checked by the caller).
pub fn getrand(rs: &mut PgPrng, min: i64, max: i64) -> i64 {
    let span = max.wrapping_sub(min) as u64;
    min.wrapping_add(rs.u64_range(0, span) as i64)
}

/// Exponential over [min, max]: the density at `max` is exp(-parameter) of that at `min`.
pub fn exponential(rs: &mut PgPrng, min: i64, max: i64, parameter: f64) -> i64 {
    let cut = (-parameter).exp();
    // pg_prng_double is in [0, 1); uniform in (0, 1].
    let uniform = 1.0 - rs.next_double();
    let rand = -(cut + (1.0 - cut) * uniform).ln() / parameter;
    min + ((max - min + 1) as f64 * rand) as i64
}

/// Gaussian over [min, max], Box-Muller, redrawn until within ±parameter.
pub fn gaussian(rs: &mut PgPrng, min: i64, max: i64, parameter: f64) -> i64 {
    let stdev = loop {
        let rand1 = 1.0 - rs.next_double();
        let rand2 = 1.0 - rs.next_double();
        let var_sqrt = (-2.0 * rand1.ln()).sqrt();
        let stdev = var_sqrt * (2.0 * std::f64::consts::PI * rand2).sin();
        if !(stdev < -parameter || stdev >= parameter) {
            break stdev;
        }
    };
    let rand = (stdev + parameter) / (parameter * 2.0);
    min + ((max - min + 1) as f64 * rand) as i64
}

/// Devroye's rejection method for zipfian over 1..=n (s > 1).
fn iterative_zipfian(rs: &mut PgPrng, n: i64, s: f64) -> i64 {
    let b = 2.0f64.powf(s - 1.0);
    if n <= 1 {
        return 1;
    }
    loop {
        let u = rs.next_double();
        let v = rs.next_double();
        let x = u.powf(-1.0 / (s - 1.0)).floor();
        let t = (1.0 + 1.0 / x).powf(s - 1.0);
        if v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= n as f64 {
            return x as i64;
        }
    }
}

/// Zipfian over [min, max], the hot values lowest.
pub fn zipfian(rs: &mut PgPrng, min: i64, max: i64, s: f64) -> i64 {
    let n = max - min + 1;
    min - 1 + iterative_zipfian(rs, n, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_in_range() {
        let mut rs = PgPrng::seeded(3);
        for _ in 0..2000 {
            assert!((5..=9).contains(&getrand(&mut rs, 5, 9)));
            assert!((1..=10).contains(&exponential(&mut rs, 1, 10, 0.5)));
            assert!((1..=10).contains(&gaussian(&mut rs, 1, 10, 2.0)));
            assert!((1..=10).contains(&zipfian(&mut rs, 1, 10, 1.001)));
        }
    }
}
