//! A report table as typed cells, so that each output format (Markdown, HTML, CSV) renders the
//! same numbers its own way: text with marks, coloured cells, or raw columns for scripts.

use crate::stats::{Comparison, Verdict};

pub struct Table {
    /// File stem of the table's CSV and anchor in the HTML page.
    pub id: String,
    pub title: String,
    /// What the numbers are: statistic, units, base.
    pub note: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
    /// Explains the marks used in the table.
    pub legend: Vec<String>,
    /// Said instead of an empty table.
    pub when_empty: String,
}

pub struct Column {
    pub name: String,
    pub kind: Kind,
}

/// What a column holds; CSV splits a spread or a change into several columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Label,
    Number,
    /// Median with the min–max over rounds.
    Spread,
    /// A ratio to the base with its 95% interval and verdict.
    Change,
    /// A plain ratio (no interval).
    Ratio,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Text(String),
    Number(f64),
    Spread {
        median: f64,
        min: f64,
        max: f64,
    },
    Change(Change),
    Ratio(f64),
    /// No value, and why ("failed", "—").
    Missing(String),
    /// A value from rounds with validity flags or failures: read it with care.
    Flagged(Box<Value>),
}

/// A comparison of new with base, shown as new/base or (inverted) as base/new, the way the
/// published "without PS / with PS" tables show it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    pub cmp: Comparison,
    pub inverted: bool,
}

/// Whether the new variant came out better, worse or the same: colours the cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Better,
    Worse,
    Same,
    Unknown,
}

impl Change {
    /// (ratio, low, high) as shown.
    pub fn shown(&self) -> (f64, f64, f64) {
        let c = &self.cmp;
        if self.inverted {
            (1.0 / c.ratio, 1.0 / c.high, 1.0 / c.low)
        } else {
            (c.ratio, c.low, c.high)
        }
    }

    /// The mark of the ratio as shown: ▲ called above 1.0, ▼ called below, ~ no change called,
    /// ? too few rounds to call.
    pub fn mark(&self) -> &'static str {
        match (self.cmp.verdict, self.inverted) {
            (Verdict::Up, false) | (Verdict::Down, true) => "▲",
            (Verdict::Down, false) | (Verdict::Up, true) => "▼",
            (Verdict::Same, _) => "~",
            (Verdict::Unknown, _) => "?",
        }
    }

    /// Throughput: higher is better for the new variant.
    pub fn tone(&self) -> Tone {
        match self.cmp.verdict {
            Verdict::Up => Tone::Better,
            Verdict::Down => Tone::Worse,
            Verdict::Same => Tone::Same,
            Verdict::Unknown => Tone::Unknown,
        }
    }
}

/// Marks values from rounds with validity flags or failures.
pub const FLAG: &str = "⚑";

/// The legend line of a table with flagged values.
/// A column of row labels.
pub fn label(s: &str) -> Column {
    Column {
        name: s.to_string(),
        kind: Kind::Label,
    }
}

pub fn column(name: impl Into<String>, kind: Kind) -> Column {
    Column {
        name: name.into(),
        kind,
    }
}

pub fn flag_legend() -> String {
    format!("{FLAG} some rounds behind this value carry validity flags or failed: see Validity.")
}

/// The legend of a table with changes; `threshold` is a fraction (0.05).
pub fn change_legend(threshold: f64) -> Vec<String> {
    vec![
        format!(
            "▲/▼ the ratio is above/below 1.0 by more than {:.0}% and its 95% interval excludes 1.0; \
             ~ no change called (within noise or within {:.0}%); ? fewer than 3 rounds, no call.",
            threshold * 100.0,
            threshold * 100.0
        ),
        "Colour (HTML): green where the new variant is faster, red where it is slower, only when a change is called."
            .to_string(),
    ]
}

/// Text made safe inside HTML and SVG.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// Numbers with about three significant digits, fixed by magnitude so the output is stable.
pub fn num(v: f64) -> String {
    num_like(v, v)
}

/// `v` with the decimals `num` would give `reference`: an interval's ends like its median.
pub fn num_like(v: f64, reference: f64) -> String {
    let a = reference.abs();
    if v == 0.0 {
        "0".to_string()
    } else if !v.is_finite() {
        "—".to_string()
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

/// Ratios always with three decimals, so columns line up and 0.5% steps show.
pub fn ratio(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3}")
    } else {
        "—".to_string()
    }
}

impl Value {
    /// The cell as text with its mark, for Markdown and HTML.
    pub fn text(&self) -> String {
        match self {
            Value::Text(s) | Value::Missing(s) => s.clone(),
            Value::Number(v) => num(*v),
            Value::Spread { median, min, max } if min == max => num(*median),
            Value::Spread { median, min, max } => {
                format!(
                    "{} [{}–{}]",
                    num(*median),
                    num_like(*min, *median),
                    num_like(*max, *median)
                )
            }
            Value::Change(c) => {
                let (r, lo, hi) = c.shown();
                if lo.is_finite() && hi.is_finite() {
                    format!("{} [{}, {}] {}", ratio(r), ratio(lo), ratio(hi), c.mark())
                } else {
                    format!("{} {}", ratio(r), c.mark())
                }
            }
            Value::Ratio(r) => ratio(*r),
            Value::Flagged(v) => format!("{} {FLAG}", v.text()),
        }
    }

    /// Mark the value when `flagged`.
    pub fn flagged_if(self, flagged: bool) -> Value {
        if flagged {
            Value::Flagged(Box::new(self))
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(ratio: f64, low: f64, high: f64, verdict: Verdict, inverted: bool) -> Change {
        Change {
            cmp: Comparison {
                ratio,
                low,
                high,
                verdict,
                rounds: 5,
                spread: 0.05,
            },
            inverted,
        }
    }

    #[test]
    fn inverted_changes_flip_the_ratio_and_the_mark_but_not_the_tone() {
        let c = change(0.8, 0.75, 0.85, Verdict::Down, true);
        let (r, lo, hi) = c.shown();
        assert!((r - 1.25).abs() < 1e-12 && lo < hi && (hi - 1.0 / 0.75).abs() < 1e-12);
        assert_eq!(c.mark(), "▲");
        assert_eq!(c.tone(), Tone::Worse);
        assert_eq!(Value::Change(c).text(), "1.250 [1.176, 1.333] ▲");
    }

    #[test]
    fn numbers_keep_about_three_digits() {
        let shown: Vec<String> = [15234.4, 41.23, 2.014, 0.0512, 0.000123, 0.0]
            .iter()
            .map(|v| num(*v))
            .collect();
        assert_eq!(shown, ["15234", "41.2", "2.01", "0.051", "1.23e-4", "0"]);
        let s = Value::Spread {
            median: 100.0,
            min: 90.0,
            max: 120.0,
        };
        assert_eq!(s.text(), "100 [90–120]");
    }

    #[test]
    fn a_change_without_interval_shows_only_ratio_and_mark() {
        let c = change(1.1, f64::NAN, f64::NAN, Verdict::Unknown, false);
        assert_eq!(Value::Change(c).text(), "1.100 ?");
    }
}
