//! Where steady state begins in a per-second throughput series, by the MSER-5 truncation rule
//! (White, 1997; the warm-up rule of simulation output analysis): average the series in
//! batches of 5 seconds, and cut where the squared standard error of the remaining mean,
//! Σ(zᵢ − z̄)² / (k − d)², is smallest, among cuts in the first half. The series never
//! settled within the window when what follows the cut still moves: its first and last
//! thirds differ by more than the trend limit.

use super::compare::{mean_and_var, t_quantile};

/// Seconds per batch once the series is long enough for batches (MSER-5).
const BATCH: usize = 5;
/// Below this many seconds, batches of one (MSER): five batches of five would be too few.
const BATCHED_FROM: usize = 30;
/// Cells shorter than this are not judged (too few seconds to tell a trend from noise).
pub const MIN_SECONDS: usize = 6;

/// The verdict on one series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steady {
    /// The first second of steady state (0: steady from the start).
    pub from: usize,
    /// Whether the series settled within the window.
    pub settled: bool,
}

/// The truncation point and verdict for `per_second`, or None when it is too short to judge.
/// `trend_limit` is the relative difference between the steady part's first and last thirds
/// that still counts as steady (e.g. 0.15).
pub fn steady_state(per_second: &[f64], trend_limit: f64) -> Option<Steady> {
    let n = per_second.len();
    if n < MIN_SECONDS {
        return None;
    }
    let batch = if n >= BATCHED_FROM { BATCH } else { 1 };
    let z: Vec<f64> = per_second
        .chunks_exact(batch)
        .map(|c| c.iter().sum::<f64>() / batch as f64)
        .collect();
    let k = z.len();
    // Cuts are sought in the first half only: near the end a few close batches win on noise
    // alone (measured: a flat series cut at 90 of 120 s). What is left must then hold level.
    let last = k / 2;
    let mut best = (f64::INFINITY, 0);
    for d in 0..=last {
        let rest = &z[d..];
        let m = rest.len() as f64;
        let mean = rest.iter().sum::<f64>() / m;
        let ss: f64 = rest.iter().map(|x| (x - mean).powi(2)).sum();
        let stat = ss / (m * m);
        if stat < best.0 {
            best = (stat, d);
        }
    }
    let d = best.1;
    let from = d * batch;
    let settled = !trending(&per_second[from..], trend_limit);
    Some(Steady { from, settled })
}

/// The steady part still moves: the mean of its last third differs from its first third's
/// by more than `limit` (relative) and by more than their noise (Welch's t at 95%). Without
/// the second condition a level but noisy series was flagged by chance: an Insert Benchmark
/// l.i2 step's inserted rows per second ranged 12,000–39,000 from one second to the next
/// (its deletes come in batches) and most of its 13-second cells were called not steady.
fn trending(s: &[f64], limit: f64) -> bool {
    let third = s.len() / 3;
    if third == 0 {
        return false;
    }
    let (first, first_var) = mean_and_var(&s[..third]);
    let (last, last_var) = mean_and_var(&s[s.len() - third..]);
    let beyond_limit = first > 0.0 && ((last - first) / first).abs() > limit;
    beyond_limit && beyond_noise(last - first, first_var, last_var, third as f64)
}

/// A difference of two means of `n` values each lies outside its 95% Welch t interval around
/// zero. With one value per third there is no noise to tell, and any difference counts.
fn beyond_noise(diff: f64, var_a: f64, var_b: f64, n: f64) -> bool {
    let (a, b) = (var_a / n, var_b / n);
    let se = (a + b).sqrt();
    if n < 2.0 || se == 0.0 {
        return true;
    }
    let df = (a + b).powi(2) / (a * a / (n - 1.0) + b * b / (n - 1.0));
    diff.abs() > t_quantile(0.975, df) * se
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// `level(t)` with 4% multiplicative noise.
    fn series(n: usize, seed: u64, level: impl Fn(usize) -> f64) -> Vec<f64> {
        let mut rng = SmallRng::seed_from_u64(seed);
        (0..n)
            .map(|t| level(t) * (1.0 + rng.random_range(-0.07..0.07)))
            .collect()
    }

    #[test]
    fn flat_series_is_steady_from_the_start() {
        for seed in 0..50 {
            let s = series(120, seed, |_| 1000.0);
            let v = steady_state(&s, 0.15).unwrap();
            assert!(v.settled, "seed {seed}: {v:?}");
            assert!(v.from <= 60, "seed {seed}: {v:?}");
        }
    }

    #[test]
    fn a_warm_up_ramp_is_cut_where_it_ends() {
        // Throughput climbs from 200 to 1000 over the first 40 s (a buffer pool warming),
        // then holds: steady state starts at about 40 s.
        let mut froms = Vec::new();
        for seed in 0..50 {
            let s = series(180, seed, |t| {
                if t < 40 {
                    200.0 + 20.0 * t as f64
                } else {
                    1000.0
                }
            });
            let v = steady_state(&s, 0.15).unwrap();
            assert!(v.settled, "seed {seed}: {v:?}");
            froms.push(v.from);
        }
        // Never inside the ramp; usually right at its end (MSER errs late on noise, which
        // costs seconds of steady state, never bias).
        froms.sort();
        assert!(froms[0] >= 35, "{froms:?}");
        assert!((40..=50).contains(&froms[froms.len() / 2]), "{froms:?}");
    }

    #[test]
    fn a_falling_series_never_settles() {
        // The shape before steady state in "MySQL 8, MySQL 5.7 and Percona Server for MySQL performance compared": throughput falling all the way as dirty
        // pages pile up.
        for seed in 0..50 {
            let s = series(180, seed, |t| 2000.0 - 8.0 * t as f64);
            let v = steady_state(&s, 0.15).unwrap();
            assert!(!v.settled, "seed {seed}: {v:?}");
        }
    }

    #[test]
    fn a_late_drop_is_not_steady() {
        // Steady for 100 s, then a drop to half for the last 20 s.
        for seed in 0..50 {
            let s = series(120, seed, |t| if t < 100 { 1000.0 } else { 500.0 });
            let v = steady_state(&s, 0.15).unwrap();
            assert!(!v.settled, "seed {seed}: {v:?}");
        }
    }

    #[test]
    fn a_level_but_noisy_series_is_steady() {
        // An l.i2 step's inserted rows per second: level at 22,000 but ±55% from one second
        // to the next, 13 seconds. The relative test alone calls most such cells not steady.
        let (mut flagged, mut relative_only) = (0, 0);
        for seed in 0..200 {
            let mut rng = SmallRng::seed_from_u64(seed);
            let s: Vec<f64> = (0..13)
                .map(|_| 22000.0 * (1.0 + rng.random_range(-0.55..0.55)))
                .collect();
            let v = steady_state(&s, 0.15).unwrap();
            flagged += usize::from(!v.settled);
            let rest = &s[v.from..];
            let third = rest.len() / 3;
            let m = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
            let (a, b) = (m(&rest[..third]), m(&rest[rest.len() - third..]));
            relative_only += usize::from(((b - a) / a).abs() > 0.15);
        }
        assert!(flagged <= 20, "{flagged} of 200 flagged");
        assert!(
            relative_only >= 60,
            "{relative_only} of 200 by the relative test alone"
        );
    }

    #[test]
    fn short_series_are_not_judged_and_short_ones_use_seconds() {
        assert_eq!(steady_state(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.15), None);
        let rising: Vec<f64> = (0..9).map(|i| 100.0 + 10.0 * i as f64).collect();
        assert!(!steady_state(&rising, 0.15).unwrap().settled);
        let flat = [100.0, 103.0, 98.0, 101.0, 99.0, 102.0, 100.0, 97.0, 101.0];
        assert!(steady_state(&flat, 0.15).unwrap().settled);
    }
}
