//! What a series' points say: where its level changed (the rule chosen by the metric's
//! precision), and whether its newest point is a regression against the level since the last
//! change or accepted point (docs/history.md#checking-in-ci).

use super::series::SeriesKey;
use super::store::StoredPoint;
use crate::stats::changes::{self, Change, Observation};

/// How changes are found and regressions called.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// For throughput and CPU series.
    pub noisy: changes::Options,
    /// For instruction counts.
    pub precise: changes::Options,
    /// The smallest regression `check` calls (0.05 = 5%); by default the precise rule's
    /// minimum magnitude for counts and 5% for the rest.
    pub threshold: Option<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            noisy: changes::Options::NOISY,
            precise: changes::Options::PRECISE,
            threshold: None,
        }
    }
}

/// The default threshold of a noisy series' check, as a study's own.
pub const NOISY_THRESHOLD: f64 = 0.05;

/// The changes of a series' points (in the store's order).
pub fn changes(key: &SeriesKey, points: &[StoredPoint], o: &Options) -> Vec<Change> {
    if key.metric.precise() {
        let obs: Vec<Observation> = points
            .iter()
            .map(|p| match p.point.interval {
                Some((low, high)) => Observation {
                    value: p.point.value,
                    low,
                    high,
                },
                None => Observation::exact(p.point.value),
            })
            .collect();
        changes::precise(&obs, &o.precise)
    } else {
        let x: Vec<f64> = points.iter().map(|p| p.point.value).collect();
        changes::noisy(&x, &o.noisy)
    }
}

/// The newest point of a series against its current level.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The newest point's index in the series.
    pub newest: usize,
    /// The mean of the points since the last change or accepted point, and how many.
    pub level: f64,
    pub level_points: usize,
    /// newest / level − 1.
    pub change: f64,
    pub threshold: f64,
    pub verdict: CheckVerdict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckVerdict {
    /// Its whole interval lies beyond the threshold in the worse direction.
    Regression,
    /// Its whole interval lies beyond the threshold in the better direction.
    Improvement,
    /// Neither: within the threshold, or an interval reaching across it.
    Unchanged,
    /// It has no interval (a single round): nothing can be called.
    NoInterval,
    /// Someone accepted it as the new level.
    Accepted,
}

/// `None` for a series of one point.
pub fn check(key: &SeriesKey, points: &[StoredPoint], o: &Options) -> Option<Checked> {
    let (newest, prior) = points.split_last()?;
    if prior.is_empty() {
        return None;
    }
    // The level starts at the last change called: a pending one may yet be a blip.
    let mut start = changes(key, prior, o)
        .iter()
        .rfind(|c| c.called())
        .map(|c| c.index)
        .unwrap_or(0);
    if let Some(a) = prior.iter().rposition(|p| p.accepted.is_some()) {
        start = start.max(a);
    }
    let since = &prior[start..];
    let level = since.iter().map(|p| p.point.value).sum::<f64>() / since.len() as f64;
    let threshold = o.threshold.unwrap_or(if key.metric.precise() {
        o.precise.min_magnitude
    } else {
        NOISY_THRESHOLD
    });
    let verdict = if newest.accepted.is_some() {
        CheckVerdict::Accepted
    } else if let Some((low, high)) = newest.point.interval {
        let above = low > level * (1.0 + threshold);
        let below = high < level * (1.0 - threshold);
        let worse = if key.metric.higher_is_better() {
            below
        } else {
            above
        };
        let better = if key.metric.higher_is_better() {
            above
        } else {
            below
        };
        if worse {
            CheckVerdict::Regression
        } else if better {
            CheckVerdict::Improvement
        } else {
            CheckVerdict::Unchanged
        }
    } else {
        CheckVerdict::NoInterval
    };
    Some(Checked {
        newest: points.len() - 1,
        level,
        level_points: since.len(),
        change: newest.point.value / level - 1.0,
        threshold,
        verdict,
    })
}
