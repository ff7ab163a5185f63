//! pgbench's hash functions and `permute` (pgbench.c getHashFnv1a, getHashMurmur2, permute).
//! None of them draws from a client's generator.

use super::prng::PgPrng;

const FNV_PRIME: u64 = 0x100_0000_01b3;
const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const MM2_MUL: u64 = 0xc6a4_a793_5bd1_e995;
const MM2_MUL_TIMES_8: u64 = 0x3525_3c9a_de8f_4ca8;
const MM2_ROT: u32 = 47;

/// FNV-1a over the 8 bytes of `val`, low byte first (arithmetic shift, as in C on int64).
pub fn fnv1a(val: i64, seed: u64) -> i64 {
    let mut val = val;
    let mut result = FNV_OFFSET_BASIS ^ seed;
    for _ in 0..8 {
        let octet = (val & 0xff) as u64;
        val >>= 8;
        result = (result ^ octet).wrapping_mul(FNV_PRIME);
    }
    result as i64
}

/// MurmurHash2, 64-bit, of one 8-byte value.
pub fn murmur2(val: i64, seed: u64) -> i64 {
    let mut result = seed ^ MM2_MUL_TIMES_8;
    let mut k = val as u64;
    k = k.wrapping_mul(MM2_MUL);
    k ^= k >> MM2_ROT;
    k = k.wrapping_mul(MM2_MUL);
    result ^= k;
    result = result.wrapping_mul(MM2_MUL);
    result ^= result >> MM2_ROT;
    result = result.wrapping_mul(MM2_MUL);
    result ^= result >> MM2_ROT;
    result as i64
}

/// Rotate the lowest `masklen` bits left by one.
fn rotate_in_mask(t: u64, mask: u64, masklen: u32) -> u64 {
    ((t << 1) & mask) | (t >> (masklen - 1))
}

/// pgbench's pseudorandom permutation of [0, size); `size` > 0 is checked by the caller.
pub fn permute(val: i64, isize: i64, seed: i64) -> i64 {
    if isize < 2 {
        return 0;
    }
    let mut state = PgPrng::seeded(seed as u64);
    let size = isize as u64;
    let mut v = (val as u64) % size;
    let masklen = 63 - size.leading_zeros();
    let mask = (1u64 << masklen) - 1;
    for _ in 0..6 {
        let m = (state.next_u64() & mask) | 1;
        let r = state.next_u64() & mask;
        if v <= mask {
            v = (v.wrapping_mul(m) ^ r) & mask;
            v = rotate_in_mask(v, mask, masklen);
        }
        let m = (state.next_u64() & mask) | 1;
        let r = state.next_u64() & mask;
        let mut t = size - 1 - v;
        if t <= mask {
            t = (t.wrapping_mul(m) ^ r) & mask;
            t = rotate_in_mask(t, mask, masklen);
            v = size - 1 - t;
        }
        let r = state.u64_range(0, size - 1);
        // v + r < 2^64 unless size > 2^63; pgbench wraps there too.
        v = v.wrapping_add(r) % size;
    }
    v as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_is_a_permutation() {
        for size in [1i64, 2, 3, 7, 100, 1000] {
            let mut seen: Vec<i64> = (0..size).map(|v| permute(v, size, 77)).collect();
            seen.sort();
            let expect: Vec<i64> = if size < 2 {
                vec![0]
            } else {
                (0..size).collect()
            };
            assert_eq!(seen, expect, "size {size}");
        }
    }
}
