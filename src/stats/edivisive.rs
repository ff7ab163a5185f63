//! Candidate change points of a noisy series by E-Divisive means (Matteson and James, 2014),
//! as Apache Otava (formerly Hunter) uses it: split the segment where the energy distance
//! between the two sides is largest, keep the split while a t test between its sides passes,
//! and repeat on every segment. The final pruning is in changes.rs.

use super::ttest::student;

/// The split of `x` (an index into it, the first point of the right side, each side at least
/// `min_segment` long) where the divergence of the two sides is largest, with that divergence.
pub fn best_split(x: &[f64], min_segment: usize) -> Option<(usize, f64)> {
    let n = x.len();
    let m = min_segment.max(1);
    if n < 2 * m {
        return None;
    }
    // Pairwise distances once: the statistic of every split is built from their sums.
    let d = |i: usize, j: usize| (x[i] - x[j]).abs();
    let mut best: Option<(usize, f64)> = None;
    for tau in m..=(n - m) {
        let (left, right) = (tau as f64, (n - tau) as f64);
        let mut between = 0.0;
        for i in 0..tau {
            for j in tau..n {
                between += d(i, j);
            }
        }
        let within = |from: usize, to: usize| -> f64 {
            let k = to - from;
            if k < 2 {
                return 0.0;
            }
            let mut s = 0.0;
            for i in from..to {
                for j in (i + 1)..to {
                    s += d(i, j);
                }
            }
            s / (k * (k - 1) / 2) as f64
        };
        let energy = 2.0 * between / (left * right) - within(0, tau) - within(tau, n);
        let q = left * right / n as f64 * energy;
        if best.is_none_or(|(_, b)| q > b) {
            best = Some((tau, q));
        }
    }
    best
}

/// Candidate change points of `x` (indices of the first point after each), found by splitting
/// the segment with the largest divergence while the t test between its two sides has a
/// p-value at most `max_p`.
pub fn candidates(x: &[f64], min_segment: usize, max_p: f64) -> Vec<usize> {
    let mut cuts: Vec<usize> = Vec::new();
    loop {
        let mut bounds = vec![0];
        bounds.extend(cuts.iter().copied());
        bounds.push(x.len());
        let best = bounds
            .windows(2)
            .filter_map(|w| {
                best_split(&x[w[0]..w[1]], min_segment).map(|(tau, q)| (w[0], w[1], w[0] + tau, q))
            })
            .max_by(|a, b| a.3.total_cmp(&b.3));
        let Some((from, to, at, _)) = best else {
            break;
        };
        let p = student(&x[from..at], &x[at..to]).p;
        // A NaN p-value (no spread to test) keeps no split either.
        if p.is_nan() || p > max_p {
            break;
        }
        cuts.push(at);
        cuts.sort_unstable();
    }
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_divergence_is_at_the_step() {
        let x = [10.0, 10.2, 9.9, 10.1, 10.0, 12.0, 12.1, 11.9, 12.2];
        assert_eq!(best_split(&x, 2).map(|b| b.0), Some(5));
        // Too short to split into two sides of three.
        assert_eq!(best_split(&x[..5], 3), None);
        assert_eq!(candidates(&x, 2, 0.01), vec![5]);
        // A flat series has no candidate that passes the test.
        assert!(candidates(&[5.0, 5.1, 4.9, 5.0, 5.1, 4.9, 5.0], 2, 0.01).is_empty());
    }
}
