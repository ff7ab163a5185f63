//! Change points in a series measured one point after another (a results history, release by
//! release or day by day): where its level moved, by how much, and how surely
//! (docs/history.md#change-points).
//!
//! Two rules, by how precise the series is:
//! - [`noisy`] (throughput, CPU per transaction): E-Divisive means with a t test, as Apache
//!   Otava does it: candidates from edivisive.rs, found window by window on the whole series
//!   with sides as short as one point (so a change is placed where it is, also near either
//!   end), then the weakest candidate is dropped while its p-value (a t test between the
//!   segments on its two sides) is above `max_p` or its magnitude below `min_magnitude`. The
//!   minimum segment then decides only whether a change can be called yet: a segment shorter
//!   than it between two changes is a blip (the weaker of its two changes is dropped), and a
//!   change with fewer points after it than that is *pending*, shown at its own point with the
//!   points it still needs.
//! - [`precise`] (instruction counts, which repeat within 0.2%): a point starts a new segment
//!   when it is at least `min_magnitude` away from its segment's mean and its own interval
//!   clears every interval of that segment, so a 0.3% wobble is no change and a single
//!   measurement can show one.

use super::compare::{mean_and_var, t_quantile};
use super::ttest::student;
use serde::{Deserialize, Serialize};

/// How changes are looked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Largest p-value of a change kept (noisy series).
    pub max_p: f64,
    /// Smallest relative change of the mean kept (0.01 = 1%).
    pub min_magnitude: f64,
    /// Fewest points on each side of a change (noisy series).
    pub min_segment: usize,
    /// Points searched at once; windows overlap by half (noisy series).
    pub window: usize,
}

impl Options {
    /// Otava's defaults: p 0.001, window 50, no minimum magnitude; five points a side (with
    /// three, a run of three high values in pure noise passed the test: the unit tests).
    pub const NOISY: Options = Options {
        max_p: 0.001,
        min_magnitude: 0.0,
        min_segment: 5,
        window: 50,
    };
    /// Instruction counts: a change is at least 1%.
    pub const PRECISE: Options = Options {
        max_p: 0.001,
        min_magnitude: 0.01,
        min_segment: 1,
        window: 50,
    };
}

/// One point of a series: its value and its own interval where it has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

impl Observation {
    pub fn exact(value: f64) -> Self {
        Observation {
            value,
            low: value,
            high: value,
        }
    }
}

/// A change between point `index − 1` and point `index`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The first point after the change.
    pub index: usize,
    /// Means of the segments on both sides (bounded by the neighbouring changes).
    pub mean_before: f64,
    pub mean_after: f64,
    /// (after − before) / before, with its 95% interval.
    pub magnitude: f64,
    pub magnitude_low: f64,
    pub magnitude_high: f64,
    /// The t test's p-value between the two segments; `None` where a side has a single
    /// point or no spread (a precise series' change is called by its points' intervals).
    pub p_value: Option<f64>,
    /// Points still needed after it before it is called; 0 for a change called.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pending: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Change {
    /// Called: enough points after it (not pending).
    pub fn called(&self) -> bool {
        self.pending == 0
    }
}

/// Changes in a noisy series: each placed where it is, pending while fewer than
/// `min_segment` points follow it.
pub fn noisy(x: &[f64], o: &Options) -> Vec<Change> {
    // Candidates window by window, at a looser p than the final one (as Otava's first pass),
    // with sides of one point: where a change is does not depend on how many points follow.
    let first_pass = (o.max_p * 10.0).min(0.05);
    let window = o.window.max(2 * o.min_segment.max(1));
    let mut cuts: Vec<usize> = Vec::new();
    let mut start = 0;
    while start < x.len() {
        let end = (start + window).min(x.len());
        for c in super::edivisive::candidates(&x[start..end], 1, first_pass) {
            let at = start + c;
            if !cuts.contains(&at) {
                cuts.push(at);
            }
        }
        if end == x.len() {
            break;
        }
        start += window / 2;
    }
    cuts.sort_unstable();
    loop {
        let mut changes = pruned(x, &mut cuts, o);
        // A segment between two changes shorter than the minimum is a blip: the weaker of its
        // two changes goes, and the rest is judged again.
        let blip =
            (1..changes.len()).find(|&i| changes[i].index - changes[i - 1].index < o.min_segment);
        if let Some(i) = blip {
            let weaker = if strength(&changes[i - 1]) < strength(&changes[i]) {
                i - 1
            } else {
                i
            };
            cuts.retain(|&c| c != changes[weaker].index);
            continue;
        }
        if let Some(last) = changes.last_mut() {
            let after = x.len() - last.index;
            last.pending = o.min_segment.saturating_sub(after);
        }
        return changes;
    }
}

/// How surely a change stands: its p-value, then its size.
fn strength(c: &Change) -> (f64, f64) {
    (-c.p_value.unwrap_or(1.0), c.magnitude.abs())
}

/// `cuts` with the weakest dropped while any fails the final test; the changes left.
fn pruned(x: &[f64], cuts: &mut Vec<usize>, o: &Options) -> Vec<Change> {
    loop {
        let changes = describe(x, cuts, None);
        let weakest = changes
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                !(c.p_value.is_some_and(|p| p <= o.max_p) && c.magnitude.abs() >= o.min_magnitude)
            })
            .max_by(|(_, a), (_, b)| {
                let pa = a.p_value.unwrap_or(1.0);
                let pb = b.p_value.unwrap_or(1.0);
                pa.total_cmp(&pb)
                    .then(b.magnitude.abs().total_cmp(&a.magnitude.abs()))
            })
            .map(|(i, _)| i);
        match weakest {
            Some(i) => {
                cuts.remove(i);
            }
            None => return changes,
        }
    }
}

/// Changes in instruction counts given as (count, low, high), by the rule for counts at its
/// defaults: a sweep's releases, as the report shows them and bisection locates them.
pub fn of_counts(counts: &[(f64, f64, f64)]) -> Vec<Change> {
    let obs: Vec<Observation> = counts
        .iter()
        .map(|&(value, low, high)| Observation { value, low, high })
        .collect();
    precise(&obs, &Options::PRECISE)
}

/// Changes in a precise series (each point with its own interval).
pub fn precise(points: &[Observation], o: &Options) -> Vec<Change> {
    let mut cuts = Vec::new();
    let mut from = 0;
    for i in 1..points.len() {
        let seg = &points[from..i];
        let mean = seg.iter().map(|p| p.value).sum::<f64>() / seg.len() as f64;
        let lowest = seg.iter().map(|p| p.low).fold(f64::INFINITY, f64::min);
        let highest = seg.iter().map(|p| p.high).fold(f64::NEG_INFINITY, f64::max);
        let p = points[i];
        let moved = mean != 0.0 && ((p.value - mean) / mean).abs() >= o.min_magnitude;
        let clear = p.low > highest || p.high < lowest;
        if moved && clear {
            cuts.push(i);
            from = i;
        }
    }
    let values: Vec<f64> = points.iter().map(|p| p.value).collect();
    describe(&values, &cuts, Some(points))
}

/// Each cut described against the segments it separates.
fn describe(x: &[f64], cuts: &[usize], own: Option<&[Observation]>) -> Vec<Change> {
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied());
    bounds.push(x.len());
    bounds
        .windows(3)
        .map(|w| {
            let (a, b) = (&x[w[0]..w[1]], &x[w[1]..w[2]]);
            let t = student(a, b);
            let (before, after) = (mean_and_var(a).0, mean_and_var(b).0);
            let magnitude = (after - before) / before;
            let (low, high) = if t.se.is_finite() && t.se > 0.0 && t.df.is_finite() {
                let h = t_quantile(0.975, t.df) * t.se;
                ((t.diff - h) / before, (t.diff + h) / before)
            } else if let Some(own) = own {
                // From the points' own intervals: the means of their ends on each side.
                let end = |s: &[Observation], f: fn(&Observation) -> f64| {
                    s.iter().map(f).sum::<f64>() / s.len() as f64
                };
                let (pa, pb) = (&own[w[0]..w[1]], &own[w[1]..w[2]]);
                (
                    (end(pb, |p| p.low) - end(pa, |p| p.high)) / before,
                    (end(pb, |p| p.high) - end(pa, |p| p.low)) / before,
                )
            } else {
                (magnitude, magnitude)
            };
            Change {
                index: w[1],
                mean_before: before,
                mean_after: after,
                magnitude,
                magnitude_low: low,
                magnitude_high: high,
                p_value: t.p.is_finite().then_some(t.p),
                pending: 0,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::SmallRng, Rng, SeedableRng};

    /// `n` draws of a normal distribution (Box–Muller) around `mean` with relative spread `cv`.
    fn normal(rng: &mut SmallRng, n: usize, mean: f64, cv: f64) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
                mean * (1.0 + cv * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos())
            })
            .collect()
    }

    #[test]
    fn no_change_is_reported_on_noise_alone() {
        for seed in 0..40 {
            let mut rng = SmallRng::seed_from_u64(seed);
            let x = normal(&mut rng, 80, 1000.0, 0.05);
            let found = noisy(&x, &Options::NOISY);
            assert!(found.is_empty(), "seed {seed}: {found:?}");
        }
    }

    #[test]
    fn a_step_in_noise_is_found_where_it_is() {
        // The t test's p-value does not allow for the search over split positions, so a
        // segment left after the true split can yield a change of its own. Measured: none of
        // these 20 with Student's t; with Welch's, seed 11 did (five high points at the start,
        // +4.4%, p = 4e-5).
        let mut extra = 0;
        for seed in 0..20 {
            let mut rng = SmallRng::seed_from_u64(100 + seed);
            let mut x = normal(&mut rng, 30, 1000.0, 0.03);
            x.extend(normal(&mut rng, 30, 900.0, 0.03));
            let found = noisy(&x, &Options::NOISY);
            let step: Vec<&Change> = found.iter().filter(|c| c.index.abs_diff(30) <= 2).collect();
            assert_eq!(step.len(), 1, "seed {seed}: {found:?}");
            let c = step[0];
            assert!(c.magnitude < -0.07 && c.magnitude > -0.13, "{c:?}");
            assert!(c.magnitude_low < c.magnitude && c.magnitude < c.magnitude_high);
            assert!(c.p_value.unwrap() < 0.001);
            extra += found.len() - 1;
        }
        assert!(extra <= 1, "{extra} changes beside the step in 20 series");
    }

    /// 40 points of 2% noise with a 20% step up at `at`.
    fn step_at(seed: u64, at: usize) -> Vec<f64> {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut x = normal(&mut rng, at, 1000.0, 0.02);
        x.extend(normal(&mut rng, 40 - at, 1200.0, 0.02));
        x
    }

    #[test]
    fn a_step_near_the_end_is_placed_where_it_is_and_pending_until_points_follow() {
        for seed in 0..10 {
            for after in 1..=4 {
                let at = 40 - after;
                let found = noisy(&step_at(seed, at), &Options::NOISY);
                assert_eq!(found.len(), 1, "seed {seed}, {after} after: {found:?}");
                let c = &found[0];
                assert_eq!(c.index, at, "seed {seed}, {after} after: {found:?}");
                assert_eq!(c.pending, 5 - after, "{c:?}");
                assert!(!c.called());
            }
            // Five points after it: called.
            let found = noisy(&step_at(seed, 35), &Options::NOISY);
            assert_eq!((found.len(), found[0].index, found[0].pending), (1, 35, 0));
        }
    }

    #[test]
    fn a_step_near_the_start_is_placed_where_it_is_and_called() {
        for seed in 0..10 {
            for at in [3, 4] {
                let found = noisy(&step_at(50 + seed, at), &Options::NOISY);
                assert_eq!(found.len(), 1, "seed {seed}, at {at}: {found:?}");
                assert_eq!((found[0].index, found[0].pending), (at, 0), "{found:?}");
            }
        }
    }

    #[test]
    fn two_steps_up_and_down_are_both_found_and_a_spike_is_not() {
        let mut rng = SmallRng::seed_from_u64(42);
        let mut x = normal(&mut rng, 25, 1000.0, 0.03);
        x.extend(normal(&mut rng, 25, 1150.0, 0.03));
        x.extend(normal(&mut rng, 25, 950.0, 0.03));
        let found = noisy(&x, &Options::NOISY);
        let near = |at: usize| found.iter().find(|c| c.index.abs_diff(at) <= 2);
        let (up, down) = (near(25).unwrap(), near(50).unwrap());
        assert!(up.magnitude > 0.1 && down.magnitude < -0.1, "{found:?}");
        // As Otava's, the p-value is not corrected for the search over positions: between the
        // two steps this seed also shows a -3.5% change at point 37 (p = 6e-4). A minimum
        // magnitude of 5% leaves only the two steps.
        assert_eq!(found.len(), 3, "{found:?}");
        let five = Options {
            min_magnitude: 0.05,
            ..Options::NOISY
        };
        assert_eq!(noisy(&x, &five).len(), 2);
        // One point at +30% in 60: shorter than the minimum segment, no change.
        let mut spike = normal(&mut rng, 60, 1000.0, 0.03);
        spike[30] *= 1.3;
        assert!(noisy(&spike, &Options::NOISY).is_empty());
    }

    #[test]
    fn a_count_with_jitter_changes_only_at_its_step() {
        let mut rng = SmallRng::seed_from_u64(9);
        let mut v = normal(&mut rng, 12, 40_000.0, 0.001);
        v.extend(normal(&mut rng, 12, 40_800.0, 0.001));
        let found = precise(&counts(&v), &Options::PRECISE);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].index, 12);
        assert!((found[0].magnitude - 0.02).abs() < 0.002, "{found:?}");
    }

    #[test]
    fn a_minimum_magnitude_drops_small_changes() {
        let mut rng = SmallRng::seed_from_u64(7);
        let mut x = normal(&mut rng, 40, 1000.0, 0.002);
        x.extend(normal(&mut rng, 40, 1005.0, 0.002));
        assert_eq!(noisy(&x, &Options::NOISY).len(), 1);
        let at_least_1pct = Options {
            min_magnitude: 0.01,
            ..Options::NOISY
        };
        assert!(noisy(&x, &at_least_1pct).is_empty());
    }

    fn counts(values: &[f64]) -> Vec<Observation> {
        // Each count with a ±0.1% interval, as cost mode's repeats give.
        values
            .iter()
            .map(|v| Observation {
                value: *v,
                low: v * 0.999,
                high: v * 1.001,
            })
            .collect()
    }

    #[test]
    fn a_precise_series_calls_a_percent_and_not_a_wobble() {
        let wobble = counts(&[39282.0, 39400.0, 39300.0, 39180.0, 39350.0]);
        assert!(precise(&wobble, &Options::PRECISE).is_empty());
        let step = counts(&[39282.0, 39300.0, 39890.0, 39910.0, 39880.0]);
        let found = precise(&step, &Options::PRECISE);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].index, 2);
        assert!(
            (found[0].magnitude - 0.0152).abs() < 0.001,
            "{:?}",
            found[0]
        );
        // One point each side: no t test, the interval from the points' own.
        let one = precise(&counts(&[100.0, 103.0]), &Options::PRECISE);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].p_value, None);
        assert!(
            one[0].magnitude_low > 0.02 && one[0].magnitude_high < 0.04,
            "{one:?}"
        );
        // A change and its return are two changes.
        let back = counts(&[100.0, 100.0, 105.0, 105.0, 100.0]);
        let idx: Vec<usize> = precise(&back, &Options::PRECISE)
            .iter()
            .map(|c| c.index)
            .collect();
        assert_eq!(idx, vec![2, 4]);
    }
}
