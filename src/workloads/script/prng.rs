//! PostgreSQL's `pg_prng` (src/common/pg_prng.c): xoroshiro128** seeded by splitmix64.
//! Bit for bit, so that a `--random-seed` gives pgbench's own draws.

/// One xoroshiro128** state, as `pg_prng_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgPrng {
    s0: u64,
    s1: u64,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut val = *state;
    val = (val ^ (val >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    val = (val ^ (val >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    val ^ (val >> 31)
}

impl PgPrng {
    /// `pg_prng_seed`.
    pub fn seeded(seed: u64) -> PgPrng {
        let mut s = seed;
        let s0 = splitmix64(&mut s);
        let s1 = splitmix64(&mut s);
        if s0 == 0 && s1 == 0 {
            // pg_prng_seed_check: Knuth's LCG constants stand in for an all-zero state.
            return PgPrng {
                s0: 0x5851_F42D_4C95_7F2D,
                s1: 0x1405_7B7E_F767_814F,
            };
        }
        PgPrng { s0, s1 }
    }

    /// `pg_prng_uint64`.
    pub fn next_u64(&mut self) -> u64 {
        let s0 = self.s0;
        let sx = self.s1 ^ s0;
        let val = s0.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        self.s0 = s0.rotate_left(24) ^ sx ^ (sx << 16);
        self.s1 = sx.rotate_left(37);
        val
    }

    /// `pg_prng_uint64_range`: bitmask rejection over [rmin, rmax].
    pub fn u64_range(&mut self, rmin: u64, rmax: u64) -> u64 {
        if rmax <= rmin {
            return rmin;
        }
        let range = rmax - rmin;
        let rshift = range.leading_zeros();
        loop {
            let val = self.next_u64() >> rshift;
            if val <= range {
                return rmin + val;
            }
        }
    }

    /// `pg_prng_double`: 52 random bits in [0, 1).
    pub fn next_double(&mut self) -> f64 {
        let v = self.next_u64();
        (v >> 12) as f64 / (1u64 << 52) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_of_one_value_draws_nothing() {
        let mut a = PgPrng::seeded(1);
        let b = a;
        assert_eq!(a.u64_range(5, 5), 5);
        assert_eq!(a, b);
    }

    #[test]
    fn doubles_are_in_unit_interval() {
        let mut a = PgPrng::seeded(42);
        for _ in 0..1000 {
            let d = a.next_double();
            assert!((0.0..1.0).contains(&d));
        }
    }
}
