//! Candidate change points of a noisy series by E-Divisive means (Matteson and James, 2014),
//! as Apache Otava (formerly Hunter) uses it: split the segment where the energy distance
//! between the two sides is largest, keep the split while a t test between its sides passes,
//! and repeat on every segment. The final pruning is in changes.rs.

use super::ttest::student;

/// The split of `x` (an index into it, the first point of the right side, each side at least
/// `min_segment` long) where the divergence of the two sides is largest, with that divergence.
/// Sums of pairwise distances are carried from one split to the next, so a segment of n
/// points costs n² steps, not n³.
pub fn best_split(x: &[f64], min_segment: usize) -> Option<(usize, f64)> {
    let n = x.len();
    let m = min_segment.max(1);
    if n < 2 * m {
        return None;
    }
    let d = |i: usize, j: usize| (x[i] - x[j]).abs();
    // With the split at tau: `left` sums d within [0, tau), `right` within [tau, n), `between`
    // across. Moving point tau to the left side moves its distances between the three.
    let (mut left, mut right, mut between) = (0.0, 0.0, 0.0);
    for i in 0..n {
        for j in (i + 1)..n {
            right += d(i, j);
        }
    }
    let mut best: Option<(usize, f64)> = None;
    for tau in 1..=(n - 1) {
        let p = tau - 1;
        let to_left: f64 = (0..p).map(|i| d(i, p)).sum();
        let to_right: f64 = (tau..n).map(|j| d(p, j)).sum();
        left += to_left;
        right -= to_right;
        between += to_right - to_left;
        if tau < m || n - tau < m {
            continue;
        }
        let (l, r) = (tau as f64, (n - tau) as f64);
        let within = |sum: f64, k: usize| match k {
            0 | 1 => 0.0,
            k => sum / (k * (k - 1) / 2) as f64,
        };
        let energy = 2.0 * between / (l * r) - within(left, tau) - within(right, n - tau);
        let q = l * r / n as f64 * energy;
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

    /// The statistic of one split from its definition, every sum afresh.
    fn q_of(x: &[f64], tau: usize) -> f64 {
        let n = x.len();
        let d = |i: usize, j: usize| (x[i] - x[j]).abs();
        let mut between = 0.0;
        for i in 0..tau {
            for j in tau..n {
                between += d(i, j);
            }
        }
        let within = |from: usize, to: usize| {
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
        let (l, r) = (tau as f64, (n - tau) as f64);
        l * r / n as f64 * (2.0 * between / (l * r) - within(0, tau) - within(tau, n))
    }

    #[test]
    fn the_carried_sums_give_the_statistic_of_its_definition() {
        let x = [3.0, 9.5, 1.0, 4.0, 4.5, 12.0, 11.0, 2.0, 10.0, 10.5, 9.0];
        for m in 1..=5 {
            let (tau, q) = best_split(&x, m).unwrap();
            let best = (m..=x.len() - m)
                .map(|t| (t, q_of(&x, t)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            assert_eq!(tau, best.0, "min {m}");
            assert!(
                (q - best.1).abs() < 1e-9 * best.1.abs().max(1.0),
                "min {m}: {q} {}",
                best.1
            );
        }
    }

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
