//! sysbench's random string templates (docs/sysbench-compat.md#draws): `#` is a uniform digit, `@` a uniform
//! lower-case letter, anything else is copied.

use super::Rng;

/// The `c` column: 10 groups of 11 digits, 119 characters.
pub const C_TEMPLATE: &[u8] = b"###########-###########-###########-###########-###########-###########-###########-###########-###########-###########";
/// The `pad` column: 5 groups of 11 digits, 59 characters.
pub const PAD_TEMPLATE: &[u8] = b"###########-###########-###########-###########-###########";

/// How many symbols one 64-bit draw yields: each takes ~3.3 (digit) or ~4.7 (letter) bits
/// off the top of a 64-bit fraction, so 8 keep the bias below 2^−25.
const SYMBOLS_PER_DRAW: u32 = 8;

/// Overwrite `out` with a fresh expansion of `template` (reusing its allocation).
pub fn fill_template(rng: &mut Rng, template: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.reserve(template.len());
    let mut fraction = 0u64;
    let mut left = 0u32;
    for &t in template {
        let (base, radix) = match t {
            b'#' => (b'0', 10u64),
            b'@' => (b'a', 26u64),
            other => {
                out.push(other);
                continue;
            }
        };
        if left == 0 {
            fraction = rng.next_u64();
            left = SYMBOLS_PER_DRAW;
        }
        // The integer part of fraction·radix is the symbol; the rest is the next fraction.
        let wide = u128::from(fraction) * u128::from(radix);
        out.push(base + (wide >> 64) as u8);
        fraction = wide as u64;
        left -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches_groups(s: &[u8], groups: usize) -> bool {
        s.len() == groups * 12 - 1
            && s.split(|&b| b == b'-').count() == groups
            && s.split(|&b| b == b'-')
                .all(|g| g.len() == 11 && g.iter().all(u8::is_ascii_digit))
    }

    #[test]
    fn c_and_pad_have_sysbench_shape_and_uniform_digits() {
        let mut rng = Rng::seeded(11);
        let mut buf = Vec::new();
        let mut digits = [0u32; 10];
        for _ in 0..2000 {
            fill_template(&mut rng, C_TEMPLATE, &mut buf);
            assert!(
                matches_groups(&buf, 10),
                "{}",
                String::from_utf8_lossy(&buf)
            );
            for d in buf.iter().filter(|b| b.is_ascii_digit()) {
                digits[(d - b'0') as usize] += 1;
            }
            fill_template(&mut rng, PAD_TEMPLATE, &mut buf);
            assert!(matches_groups(&buf, 5));
        }
        assert_eq!(C_TEMPLATE.len(), 119);
        assert_eq!(PAD_TEMPLATE.len(), 59);
        let total: u32 = digits.iter().sum();
        for c in digits {
            assert!((f64::from(c) / f64::from(total) - 0.1).abs() < 0.005);
        }
    }

    #[test]
    fn letters_and_literals() {
        let mut rng = Rng::seeded(2);
        let mut buf = Vec::new();
        fill_template(&mut rng, b"@@@@@@@@@@@@-x#", &mut buf);
        assert!(buf[..12].iter().all(u8::is_ascii_lowercase));
        assert_eq!(&buf[12..14], b"-x");
        assert!(buf[14].is_ascii_digit());
        let first = buf.clone();
        fill_template(&mut rng, b"@@@@@@@@@@@@-x#", &mut buf);
        assert_ne!(first, buf);
    }
}
