//! Calibration of the throughput comparison (stats::compare) on simulated studies with this
//! host's drift and noise: with nothing changed it must call a change beyond the threshold in
//! at most 5% of studies, and a real 10% slowdown must be called in most studies of 5 rounds.
//! The figures quoted in docs/statistics.md come from
//! `cargo test --release --test suite stats_calibration:: -- --nocapture`.
//!
//! The model of a study (docs/statistics.md#calibration): three throughput variants take
//! turns of 1.5 minutes in a balanced order (run::work::balanced_order), as a study runs them. The machine's
//! level drifts: a linear trend of up to 25% per 40 minutes either way (measured here on
//! main's host) plus a random walk of 2% per 5 minutes. Each cell has lognormal noise of 3.7%
//! (a within-round ratio spread of 5.2%, what the default study of a fresh machine showed), and
//! one cell in 50 is disturbed unnoticed, losing 10–30%.

use psbench::run::work::balanced_order;
use psbench::stats::{median, paired, unpaired};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const VARIANTS: usize = 3;
const TURN_MINUTES: f64 = 1.5;
const TREND_PER_40_MIN: f64 = 0.25;
const WALK_PER_5_MIN: f64 = 0.02;
const CELL_NOISE: f64 = 0.037;
const CONTAMINATED: f64 = 0.02;
const THRESHOLD: f64 = 0.05;

fn normal(rng: &mut SmallRng) -> f64 {
    // Box–Muller: rand alone has no normal distribution.
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// One simulated study: per round, (base, variant) throughput, the variant's true ratio `effect`.
fn study(rng: &mut SmallRng, rounds: usize, effect: f64, noise: f64) -> Vec<(f64, f64)> {
    let trend = rng.random_range(-TREND_PER_40_MIN..TREND_PER_40_MIN) / 40.0;
    let step_sd = WALK_PER_5_MIN * (TURN_MINUTES / 5.0).sqrt();
    let mut walk = 0.0;
    let mut turn = 0usize;
    let mut out = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let mut cell = [0.0; VARIANTS];
        let variants: Vec<usize> = (0..VARIANTS).collect();
        for v in balanced_order(&variants, r as u32) {
            walk += step_sd * normal(rng);
            let minutes = turn as f64 * TURN_MINUTES;
            let level = (1.0 + trend * minutes).max(0.2) * walk.exp();
            let mut tps = 1000.0 * level * (noise * normal(rng)).exp();
            if rng.random::<f64>() < CONTAMINATED {
                tps *= 1.0 - rng.random_range(0.1..0.3);
            }
            if v == 1 {
                tps *= effect;
            }
            cell[v] = tps;
            turn += 1;
        }
        out.push((cell[0], cell[1]));
    }
    out
}

/// The pre-issue-17 method, for the record: medians of each side resampled independently.
fn unpaired_bootstrap(base: &[f64], new: &[f64], rng: &mut SmallRng) -> (f64, f64, f64) {
    let ratio = median(new) / median(base);
    let mut rs: Vec<f64> = (0..1000)
        .map(|_| {
            let b: Vec<f64> = (0..base.len())
                .map(|_| base[rng.random_range(0..base.len())])
                .collect();
            let n: Vec<f64> = (0..new.len())
                .map(|_| new[rng.random_range(0..new.len())])
                .collect();
            median(&n) / median(&b)
        })
        .collect();
    rs.sort_by(f64::total_cmp);
    (ratio, rs[25], rs[974])
}

fn called(ratio: f64, low: f64, high: f64) -> bool {
    (low > 1.0 && ratio - 1.0 >= THRESHOLD) || (high < 1.0 && 1.0 - ratio >= THRESHOLD)
}

#[derive(Default, Debug)]
struct Rates {
    /// Share of studies whose interval excludes the true ratio.
    missed: f64,
    /// Share of studies with a change called (▲ or ▼).
    called: f64,
}

/// Rates of a method over `n` simulated studies.
fn rates(method: &str, rounds: usize, effect: f64, noise: f64, seed: u64) -> Rates {
    let n = STUDIES;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut boot_rng = SmallRng::seed_from_u64(seed ^ 0xb007);
    let (mut missed, mut calls) = (0, 0);
    for _ in 0..n {
        let pairs = study(&mut rng, rounds, effect, noise);
        let (base, new): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
        let (low, high, call) = match method {
            "paired t" => {
                let c = paired(&pairs, THRESHOLD);
                (c.low, c.high, c.verdict.called())
            }
            "unpaired Welch t" => {
                let c = unpaired(&base, &new, THRESHOLD);
                (c.low, c.high, c.verdict.called())
            }
            "unpaired bootstrap" => {
                let (r, lo, hi) = unpaired_bootstrap(&base, &new, &mut boot_rng);
                (lo, hi, rounds >= 3 && called(r, lo, hi))
            }
            _ => unreachable!(),
        };
        if !(low <= effect && effect <= high) {
            missed += 1;
        }
        if call {
            calls += 1;
        }
    }
    Rates {
        missed: missed as f64 / n as f64,
        called: calls as f64 / n as f64,
    }
}

const STUDIES: usize = 2000;

#[test]
fn paired_t_calls_no_change_where_there_is_none_and_finds_ten_percent_in_five_rounds() {
    println!("method             rounds  A/A interval misses  A/A called  10% slower called");
    let mut table = Vec::new();
    for method in ["paired t", "unpaired Welch t", "unpaired bootstrap"] {
        for rounds in [3, 5, 10] {
            let aa = rates(method, rounds, 1.0, CELL_NOISE, 17 + rounds as u64);
            let effect = rates(method, rounds, 0.9, CELL_NOISE, 1017 + rounds as u64);
            println!(
                "{method:<18} {rounds:>6}  {:>19.3}  {:>10.3}  {:>17.3}",
                aa.missed, aa.called, effect.called
            );
            table.push((method, rounds, aa, effect));
        }
    }
    let row = |m: &str, r: usize| {
        table
            .iter()
            .find(|(mm, rr, _, _)| *mm == m && *rr == r)
            .unwrap()
    };
    for rounds in [3, 5, 10] {
        let (_, _, aa, _) = row("paired t", rounds);
        assert!(
            aa.called <= 0.05,
            "A/A called in {:.3} of studies at {rounds} rounds",
            aa.called
        );
        // The interval itself holds its 95%: the threshold is not what keeps A/A quiet.
        assert!(
            aa.missed <= 0.07,
            "A/A interval misses 1.0 in {:.3} at {rounds} rounds",
            aa.missed
        );
    }
    let (_, _, _, ten) = row("paired t", 5);
    assert!(
        ten.called > 0.5,
        "a 10% slowdown called in only {:.3} of 5-round studies",
        ten.called
    );
    // Why not the bootstrap the reports used before: over 3 rounds its interval is about
    // too narrow and misses the truth more often than the 5% it claims (8% in this model).
    let (_, _, boot, _) = row("unpaired bootstrap", 3);
    assert!(
        boot.missed > 0.065,
        "bootstrap A/A misses only {:.3}",
        boot.missed
    );
}

#[test]
fn pairing_is_what_resolves_a_change_when_drift_outweighs_the_noise() {
    // Longer cells (a quarter of the noise): the drift between rounds is now the larger part,
    // and a 10% slowdown over 3 rounds is called more often within rounds than across
    // them. Were the rounds not paired (a wrong round matched, or none), this would fail.
    let noise = CELL_NOISE / 4.0;
    let p = rates("paired t", 3, 0.9, noise, 7);
    let u = rates("unpaired Welch t", 3, 0.9, noise, 7);
    let aa = rates("paired t", 3, 1.0, noise, 8);
    println!(
        "cell noise {:.1}%, 3 rounds: 10% slower called paired {:.3}, unpaired {:.3}; A/A called paired {:.3}, interval misses {:.3}",
        noise * 100.0,
        p.called,
        u.called,
        aa.called,
        aa.missed
    );
    assert!(
        p.called > u.called + 0.04,
        "paired {:.3} vs unpaired {:.3}",
        p.called,
        u.called
    );
    assert!(aa.called <= 0.05 && aa.missed <= 0.07, "{aa:?}");
}
