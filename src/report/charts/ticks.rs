//! Axis ticks for the report's charts: round values with labels, at least three on every
//! numeric axis, linear or log. Plotters' own choice labels a log axis only at 1, 2 and 5
//! times a power of ten, so a latency axis spanning 9.2–11.5 ms showed one label; [`Ticked`]
//! makes plotters draw an axis at these ticks and nowhere else.

use plotters::coord::ranged1d::{AsRangedCoord, DefaultFormatting, KeyPointHint, Ranged};

/// A labelled position on an axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub value: f64,
    pub label: String,
}

/// The fewest ticks an axis gets.
pub const MIN_TICKS: usize = 3;

/// `m` × 10^`e` without the rounding noise of multiplying by a negative power of ten, so that
/// 3 × 0.1 is 0.3 and its label reads "0.3".
fn scaled(m: i64, e: i32) -> f64 {
    if e < 0 {
        m as f64 / 10f64.powi(-e)
    } else {
        m as f64 * 10f64.powi(e)
    }
}

fn tick(m: i64, e: i32) -> Tick {
    Tick {
        value: scaled(m, e),
        label: format!("{:.*}", (-e).max(0) as usize, scaled(m, e)),
    }
}

/// A range with room: an empty or reversed one is widened around its value.
fn widened(lo: f64, hi: f64) -> (f64, f64) {
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    if hi > lo {
        (lo, hi)
    } else {
        let d = lo.abs().max(1.0) * 0.1;
        (lo - d, hi + d)
    }
}

/// Multiples of the largest 1-2-5 step that puts at least `min` (at least 3) of them in
/// [lo, hi]. At most about 2.5 × `min` + 1 ticks: the next larger step gave fewer than `min`.
pub fn linear(lo: f64, hi: f64, min: usize) -> Vec<Tick> {
    let min = min.max(MIN_TICKS);
    if !(lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    let (lo, hi) = widened(lo, hi);
    let top = (hi - lo).log10().floor() as i32;
    for e in (top - 4..=top).rev() {
        for m in [5i64, 2, 1] {
            let step = scaled(m, e);
            // A hair of slack: 0.98 / 0.01 may come out as 98.000000001.
            let first = (lo / step - 1e-9).ceil() as i64;
            let last = (hi / step + 1e-9).floor() as i64;
            if last - first + 1 >= min as i64 {
                return (first..=last).map(|i| tick(i * m, e)).collect();
            }
        }
    }
    Vec::new()
}

/// Powers of ten when the range holds three of them, else 1, 2 and 5 times them, else every
/// digit times them, else (a range narrower than that) linear ticks, which on so short a log
/// axis are evenly spaced to the eye.
pub fn log(lo: f64, hi: f64) -> Vec<Tick> {
    if !(lo > 0.0 && hi.is_finite()) {
        return linear(lo, hi, MIN_TICKS);
    }
    let (lo, hi) = widened(lo, hi);
    let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let digits: [&[i64]; 3] = [&[1], &[1, 2, 5], &[1, 2, 3, 4, 5, 6, 7, 8, 9]];
    for set in digits {
        let ticks: Vec<Tick> = (first..=last)
            .flat_map(|e| set.iter().map(move |d| tick(*d, e)))
            .filter(|t| t.value >= lo * (1.0 - 1e-9) && t.value <= hi * (1.0 + 1e-9))
            .collect();
        if ticks.len() >= MIN_TICKS {
            return ticks;
        }
    }
    linear(lo, hi, MIN_TICKS)
}

/// The label of the tick at `v`, or nothing between ticks.
pub fn label_at(ticks: &[Tick], v: f64) -> String {
    ticks
        .iter()
        .find(|t| (t.value - v).abs() <= 1e-9 * t.value.abs().max(1e-12))
        .map(|t| t.label.clone())
        .unwrap_or_default()
}

/// An axis with its grid lines and labels at our ticks, and no minor lines.
pub struct Ticked<R> {
    inner: R,
    at: Vec<f64>,
}

/// `coord` (a range, or a range's log scale) with grid lines and labels at `t` only.
pub fn ticked<C: AsRangedCoord<Value = f64>>(coord: C, t: &[Tick]) -> Ticked<C::CoordDescType> {
    Ticked {
        inner: coord.into(),
        at: t.iter().map(|t| t.value).collect(),
    }
}

impl<R: Ranged<ValueType = f64>> Ranged for Ticked<R> {
    // Labels come from our formatter; plotters' default is never used.
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.at.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }

    fn axis_pixel_range(&self, limit: (i32, i32)) -> std::ops::Range<i32> {
        self.inner.axis_pixel_range(limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(t: &[Tick]) -> Vec<&str> {
        t.iter().map(|t| t.label.as_str()).collect()
    }

    /// Every tick inside the range, ascending, labels distinct and non-empty.
    fn well_formed(t: &[Tick], lo: f64, hi: f64) {
        assert!(t.len() >= MIN_TICKS, "{lo}..{hi}: {t:?}");
        assert!(t.windows(2).all(|w| w[0].value < w[1].value), "{t:?}");
        assert!(t.iter().all(|x| x.value >= lo - 1e-9 * lo.abs().max(1.0)));
        assert!(t.iter().all(|x| x.value <= hi + 1e-9 * hi.abs().max(1.0)));
        let mut l = labels(t);
        l.dedup();
        assert_eq!(l.len(), t.len(), "labels repeat: {t:?}");
        assert!(l.iter().all(|x| !x.is_empty()));
    }

    #[test]
    fn narrow_log_ranges_get_three_labels() {
        // read_write latency: one label ("10.0") before.
        let t = log(9.2, 11.5);
        well_formed(&t, 9.2, 11.5);
        assert_eq!(labels(&t), ["9.5", "10.0", "10.5", "11.0", "11.5"]);
        let t = log(4.5, 19.0);
        well_formed(&t, 4.5, 19.0);
        assert_eq!(labels(&t), ["5", "6", "7", "8", "9", "10"]);
        for (lo, hi) in [(0.0213, 0.0251), (981.0, 1003.0), (1.0001, 1.0009)] {
            well_formed(&log(lo, hi), lo, hi);
        }
    }

    #[test]
    fn wide_log_ranges_get_powers_of_ten_or_one_two_five() {
        let t = log(0.017, 40.1);
        well_formed(&t, 0.017, 40.1);
        assert_eq!(labels(&t), ["0.1", "1", "10"]);
        let t = log(0.3, 8.0);
        assert_eq!(labels(&t), ["0.5", "1", "2", "5"]);
        well_formed(&log(1e-4, 1e6), 1e-4, 1e6);
    }

    #[test]
    fn narrow_linear_ranges_get_three_labels() {
        // A ratio axis around 1.0.
        let t = linear(0.98, 1.03, MIN_TICKS);
        well_formed(&t, 0.98, 1.03);
        assert_eq!(labels(&t), ["0.98", "1.00", "1.02"]);
        let t = linear(0.98, 1.03, 4);
        assert_eq!(labels(&t), ["0.98", "0.99", "1.00", "1.01", "1.02", "1.03"]);
        for (lo, hi) in [(30210.0, 30290.0), (1e-9, 3e-9), (-0.2, 0.1), (5.0, 5.0)] {
            well_formed(
                &linear(lo, hi, MIN_TICKS),
                lo.min(hi) - 1.0,
                hi.max(lo) + 1.0,
            );
            assert!(linear(lo, hi, MIN_TICKS).len() >= MIN_TICKS, "{lo}..{hi}");
        }
    }

    #[test]
    fn wide_linear_ranges_stay_few_and_round() {
        let t = linear(0.0, 41959.0 * 1.06, 4);
        well_formed(&t, 0.0, 41959.0 * 1.06);
        assert_eq!(labels(&t), ["0", "10000", "20000", "30000", "40000"]);
        let t = linear(0.5, 60.5, MIN_TICKS);
        assert_eq!(labels(&t), ["20", "40", "60"]);
        let t = linear(0.5, 3.5, MIN_TICKS);
        assert_eq!(labels(&t), ["1", "2", "3"]);
        for hi in [1.1, 7.0, 123.0, 9.9e5] {
            let n = linear(0.0, hi, 4).len();
            assert!((4..=11).contains(&n), "0..{hi}: {n} ticks");
        }
    }

    #[test]
    fn labels_are_found_at_their_ticks_only() {
        let t = linear(0.98, 1.03, 4);
        assert_eq!(label_at(&t, 0.3 * 10.0 / 3.0), "1.00");
        assert_eq!(label_at(&t, 1.005), "");
    }
}
