//! sysbench's random machinery (docs/sysbench-compat.md#random-numbers): a per-thread xoroshiro128+ generator, the
//! `--rand-type` distributions behind `default(a, b)`, and the `#`/`@` string templates.

mod distribution;
mod strings;
mod zipf;

pub use distribution::{Distribution, RangeSampler};
pub use strings::{fill_template, C_TEMPLATE, PAD_TEMPLATE};

/// xoroshiro128+ (2016 constants, as sysbench 1.0.20): fast, small, per thread.
#[derive(Clone, Debug)]
pub struct Rng {
    s0: u64,
    s1: u64,
}

impl Rng {
    /// A generator whose whole state comes from `seed` (splitmix64 expansion, so nearby
    /// seeds give unrelated streams and the state is never all zero).
    pub fn seeded(seed: u64) -> Rng {
        let mut sm = seed;
        let s0 = splitmix64(&mut sm);
        let mut s1 = splitmix64(&mut sm);
        if s0 == 0 && s1 == 0 {
            s1 = 1;
        }
        Rng { s0, s1 }
    }

    /// A generator for one stream of a seeded family (a table, a worker thread): the
    /// same (seed, stream) always gives the same draws.
    pub fn for_stream(seed: u64, stream: u64) -> Rng {
        let mut sm = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        Rng::seeded(splitmix64(&mut sm))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s0 = self.s0;
        let mut s1 = self.s1;
        let result = s0.wrapping_add(s1);
        s1 ^= s0;
        self.s0 = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
        self.s1 = s1.rotate_left(36);
        result
    }

    /// Uniform double in [0, 1) from the top 52 bits, as sysbench builds it.
    #[inline]
    pub fn uniform_f64(&mut self) -> f64 {
        (self.next_u64() >> 12) as f64 * (1.0 / (1u64 << 52) as f64)
    }

    /// sysbench's `uniform(a, b)`: a + int(U·(b−a+1)), inclusive of both ends.
    #[inline]
    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        let span = f64::from(b - a) + 1.0;
        a + (self.uniform_f64() * span) as u32
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_streams_repeat_and_differ() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::seeded(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::seeded(7);
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::for_stream(7, 1);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn uniform_covers_both_ends_and_deciles_are_flat() {
        let mut r = Rng::seeded(1);
        let mut deciles = [0u32; 10];
        let (mut lo, mut hi) = (u32::MAX, 0);
        let n = 200_000;
        for _ in 0..n {
            let v = r.uniform(1, 10_000);
            lo = lo.min(v);
            hi = hi.max(v);
            deciles[((v - 1) / 1000) as usize] += 1;
        }
        assert_eq!((lo, hi), (1, 10_000));
        for d in deciles {
            let share = f64::from(d) / f64::from(n);
            assert!((share - 0.1).abs() < 0.005, "decile share {share}");
        }
        let u = r.uniform_f64();
        assert!((0.0..1.0).contains(&u));
    }
}
