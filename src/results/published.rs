//! A figure a published study printed, kept in a study file so that the report sets this
//! study's own figures beside it (`[[published]]`, docs/study-file.md#published-figures).
//! An entry says which study printed it (`source`, results::sources), what it maps to here
//! (variants against a base, steps, thread counts, regime), the figure in the direction the
//! study printed it, and, for a figure psbench cannot measure, why not. [`Published::figure`]
//! converts it, once, to new / base.

use serde::{Deserialize, Serialize};

/// How the study printed a ratio.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Printed {
    /// new / base (the variant's over the base's), as psbench prints every ratio.
    #[default]
    #[serde(rename = "new/base")]
    NewOverBase,
    /// base / new: "without PS / with PS" where the variant has PS on.
    #[serde(rename = "base/new")]
    BaseOverNew,
}

/// What a figure measures here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Transactions (or rows, or queries) per second.
    #[default]
    Throughput,
    /// The device's reads in MB/s over the cell's steady part.
    DeviceReadMbS,
    /// The device's writes in MB/s.
    DeviceWriteMbS,
}

/// How a figure over several steps is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// Each step is a point of its own, and every point must bear the figure out.
    #[default]
    Each,
    /// The steps (and thread counts) pooled, within each round, into one figure.
    Pooled,
}

/// A claim about thread counts: no change below `threads`, the variant slower from it on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FromThreads {
    pub threads: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// The study that printed it: a key of results::sources (`"pfs-overhead"`).
    pub source: String,
    /// What it says, in a line of psbench's words ("PS on with every consumer, read-only").
    pub figure: String,
    /// The variants it is about, each against `base` (default: the study's base).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The steps it is about (a published `qN` is written as both `qrN` and `qpN`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<String>,
    /// The thread counts it is about; with `ratios`, one figure per thread count. None: every
    /// thread count the study runs, pooled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<u32>,
    /// The regime it was measured in: `"cached"` or `"io-bound"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<String>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub printed: Printed,
    #[serde(default, skip_serializing_if = "is_default")]
    pub measure: Measure,
    /// One ratio, as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// A ratio per thread count of `threads`, as printed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ratios: Vec<f64>,
    /// The band's own half-width, a share of the figure, in place of the study's threshold;
    /// given only with `tolerance_why`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance_why: Option<String>,
    /// One side only, as printed: "costs at most 4%", "no improvement".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    /// How a figure over several steps is read: each step on its own (the default) or the
    /// steps pooled into one figure, as a summary of them; given with `read_why`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub read: Reading,
    /// Why the figure is read over these steps and thread counts (a summary's reading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_why: Option<String>,
    /// A range of ratios, as printed: `[1.11, 1.15]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[f64; 2]>,
    /// An absolute value (kept for context) in `unit`, and the same study's value of the base:
    /// their ratio is what is compared. Without `base_absolute` it is the base's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_absolute: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// A ranking: tiers of variants, the costliest first; the members of a tier cost about
    /// the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranking: Vec<Vec<String>>,
    /// A threshold in thread counts: no change below it, slower from it on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_threads: Option<FromThreads>,
    /// A threshold in throughput: no drop below this rate (transactions per second), a drop
    /// above it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_rate: Option<f64>,
    /// Why psbench cannot measure it here (a server or device it cannot run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_measured: Option<String>,
    /// What a reader should know of how it was carried ("its text says 9%; its QPS give 7.5%").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// " at 32 threads", or nothing for a figure over every thread count: how the report and
/// `psbench studies --published` say where a figure was printed.
pub fn at_threads(t: &[u32]) -> String {
    match t {
        [] => String::new(),
        [1] => " at 1 thread".into(),
        many => format!(
            " at {} threads",
            many.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn is_default<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
}

/// A figure as new / base.
#[derive(Clone, Debug, PartialEq)]
pub enum Figure {
    /// One ratio; with a tolerance, `value` × (1 ± tolerance).
    Ratio {
        value: f64,
        tolerance: Option<f64>,
    },
    Range {
        low: f64,
        high: f64,
    },
    /// One side: new / base at most, or at least, this.
    AtMost(f64),
    AtLeast(f64),
    /// An absolute value with its base's: `ratio` is what is compared. `None`: the base's own.
    Absolute {
        value: f64,
        unit: String,
        ratio: Option<f64>,
    },
    /// Tiers of variants, costliest first.
    Ranking(Vec<Vec<String>>),
    FromThreads(u32),
    FromRate(f64),
}

impl Figure {
    /// The figure as new / base, as the report and `psbench studies --published` say it.
    pub fn text(&self) -> String {
        match self {
            Figure::Ratio {
                value,
                tolerance: None,
            } => format!("{value:.3}"),
            Figure::Ratio {
                value,
                tolerance: Some(t),
            } => format!("{value:.3} ± {:.0}%", t * 100.0),
            Figure::Range { low, high } => format!("{low:.3} to {high:.3}"),
            Figure::AtMost(v) => format!("≤ {v:.3}"),
            Figure::AtLeast(v) => format!("≥ {v:.3}"),
            Figure::Absolute { value, unit, ratio } => match ratio {
                Some(r) => format!("{value} {unit}: {r:.3} of its base"),
                None => format!("{value} {unit} (the base)"),
            },
            Figure::Ranking(tiers) => tiers
                .iter()
                .map(|t| t.join(" ≈ "))
                .collect::<Vec<_>>()
                .join(" costlier than "),
            Figure::FromThreads(t) => format!("≈ 1 below {t} threads, slower from {t}"),
            Figure::FromRate(r) => format!("≈ 1 below {r:.0} transactions/s, slower above"),
        }
    }
}

impl Published {
    /// The band's half-width: the entry's own tolerance, else the study's threshold.
    pub fn tolerance_or(&self, threshold: f64) -> f64 {
        self.tolerance.unwrap_or(threshold)
    }

    /// How many figures the entry carries: one per thread count with `ratios`, else one.
    pub fn count(&self) -> usize {
        self.ratios.len().max(1)
    }

    /// Figure `i` (of [`Published::count`]) as new / base, and the thread counts it is
    /// about; `None` when the entry holds no figure of a kind it knows.
    pub fn figure(&self, i: usize) -> Option<(Figure, Vec<u32>)> {
        let turn = |x: f64| match self.printed {
            Printed::NewOverBase => x,
            Printed::BaseOverNew => 1.0 / x,
        };
        if !self.ratios.is_empty() {
            let v = *self.ratios.get(i)?;
            let t = self.threads.get(i).map(|t| vec![*t]).unwrap_or_default();
            let figure = Figure::Ratio {
                value: turn(v),
                tolerance: self.tolerance,
            };
            return Some((figure, t));
        }
        let threads = self.threads.clone();
        let f = if let Some(v) = self.ratio {
            Figure::Ratio {
                value: turn(v),
                tolerance: self.tolerance,
            }
        } else if let Some([a, b]) = self.range {
            let (x, y) = (turn(a), turn(b));
            Figure::Range {
                low: x.min(y),
                high: x.max(y),
            }
        } else if let Some(v) = self.at_most.or(self.at_least) {
            // Printed base / new, "at most" turns into "at least".
            let most = self.at_most.is_some() == (self.printed == Printed::NewOverBase);
            match most {
                true => Figure::AtMost(turn(v)),
                false => Figure::AtLeast(turn(v)),
            }
        } else if let Some(v) = self.absolute {
            Figure::Absolute {
                value: v,
                unit: self.unit.clone().unwrap_or_default(),
                ratio: self.base_absolute.map(|b| turn(v / b)),
            }
        } else if !self.ranking.is_empty() {
            Figure::Ranking(self.ranking.clone())
        } else if let Some(f) = &self.from_threads {
            Figure::FromThreads(f.threads)
        } else if let Some(r) = self.from_rate {
            Figure::FromRate(r)
        } else {
            return None;
        };
        Some((f, threads))
    }

    /// The kinds of figure the entry gives (a well-formed entry gives one).
    pub fn kinds(&self) -> Vec<&'static str> {
        let mut k = Vec::new();
        let mut add = |on: bool, name| {
            if on {
                k.push(name)
            }
        };
        add(self.ratio.is_some(), "ratio");
        add(!self.ratios.is_empty(), "ratios");
        add(self.range.is_some(), "range");
        add(self.at_most.is_some(), "at_most");
        add(self.at_least.is_some(), "at_least");
        add(self.absolute.is_some(), "absolute");
        add(!self.ranking.is_empty(), "ranking");
        add(self.from_threads.is_some(), "from_threads");
        add(self.from_rate.is_some(), "from_rate");
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_printed_without_over_with_is_turned_once_to_new_over_base() {
        let p = Published {
            printed: Printed::BaseOverNew,
            ratios: vec![1.25, 0.96],
            threads: vec![32, 1024],
            ..Default::default()
        };
        assert_eq!(p.count(), 2);
        let (f, t) = p.figure(0).unwrap();
        assert_eq!(t, [32]);
        assert_eq!(
            f,
            Figure::Ratio {
                value: 0.8,
                tolerance: None
            }
        );
        let r = Published {
            printed: Printed::BaseOverNew,
            range: Some([1.11, 1.25]),
            ..Default::default()
        };
        let (Figure::Range { low, high }, _) = r.figure(0).unwrap() else {
            panic!()
        };
        assert!((low - 0.8).abs() < 1e-12 && (high - 1.0 / 1.11).abs() < 1e-12);
        let a = Published {
            absolute: Some(4682.0),
            base_absolute: Some(5063.0),
            unit: Some("QPS".into()),
            ..Default::default()
        };
        let (Figure::Absolute { ratio, .. }, _) = a.figure(0).unwrap() else {
            panic!()
        };
        assert!((ratio.unwrap() - 4682.0 / 5063.0).abs() < 1e-12);
    }
}
