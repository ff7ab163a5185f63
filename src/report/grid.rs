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

/// Between a column's group and its own name ("throughput · read_only ×2"): HTML heads a
/// run of columns of one group with the group's name once; text formats keep the whole name.
pub const GROUP: &str = " · ";

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
    /// Items of one cell (options, statements): joined by `sep` in text and CSV, a line
    /// each in HTML so that a cell is as wide as its longest item.
    List {
        items: Vec<String>,
        sep: &'static str,
    },
    /// No value, and why ("failed", "—").
    Missing(String),
    /// A value from rounds with validity flags or failures: read it with care.
    Flagged(Box<Value>),
}

/// What a ratio new / base measures, which decides the words of its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sense {
    /// Work per second: higher is better for the new variant ("faster", "slower").
    Throughput,
    /// Resources per unit of work (CPU or instructions per transaction): lower is better,
    /// and "faster" would be wrong ("costs more", "costs less").
    Cost,
}

/// The words of the two verdicts that call no change, whatever the metric.
pub const WITHIN: &str = "within threshold";
pub const NOT_RESOLVED: &str = "not resolved";

/// The word for a verdict on new / base: said of the new variant, the same in every format.
pub fn word(v: Verdict, sense: Sense) -> &'static str {
    match (v, sense) {
        (Verdict::Above, Sense::Throughput) => "faster",
        (Verdict::Below, Sense::Throughput) => "slower",
        (Verdict::Above, Sense::Cost) => "costs more",
        (Verdict::Below, Sense::Cost) => "costs less",
        (Verdict::Within, _) => WITHIN,
        (Verdict::NotResolved, _) => NOT_RESOLVED,
    }
}

/// A comparison of new with base, shown as new / base: every ratio of a report points that
/// way, above 1.0 meaning more of the measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    pub cmp: Comparison,
    pub sense: Sense,
}

/// Whether the new variant came out better, worse or the same: colours the cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Better,
    Worse,
    Same,
    Unknown,
}

/// The marks: arrows follow the ratio; the other two say no change was called.
const UP: &str = "▲";
const DOWN: &str = "▼";
const WITHIN_MARK: &str = "≈";
const NOT_RESOLVED_MARK: &str = "?";

impl Change {
    /// Throughput of new / base.
    pub fn throughput(cmp: Comparison) -> Change {
        Change {
            cmp,
            sense: Sense::Throughput,
        }
    }

    /// A cost (lower is better) of new / base.
    pub fn cost(cmp: Comparison) -> Change {
        Change {
            sense: Sense::Cost,
            ..Change::throughput(cmp)
        }
    }

    /// (ratio, low, high) of new / base.
    pub fn shown(&self) -> (f64, f64, f64) {
        let c = &self.cmp;
        (c.ratio, c.low, c.high)
    }

    /// The verdict's word (faster, slower, costs more, costs less, within threshold, not
    /// resolved).
    pub fn word(&self) -> &'static str {
        word(self.cmp.verdict, self.sense)
    }

    /// The mark of the ratio: ▲ a change called above 1.0, ▼ below, ≈ within threshold,
    /// ? not resolved.
    pub fn mark(&self) -> &'static str {
        match self.cmp.verdict {
            Verdict::Above => UP,
            Verdict::Below => DOWN,
            Verdict::Within => WITHIN_MARK,
            Verdict::NotResolved => NOT_RESOLVED_MARK,
        }
    }

    /// Better or worse for the new variant, by the metric's sense.
    pub fn tone(&self) -> Tone {
        match (self.cmp.verdict, self.sense) {
            (Verdict::Above, Sense::Throughput) | (Verdict::Below, Sense::Cost) => Tone::Better,
            (Verdict::Below, Sense::Throughput) | (Verdict::Above, Sense::Cost) => Tone::Worse,
            (Verdict::Within, _) => Tone::Same,
            (Verdict::NotResolved, _) => Tone::Unknown,
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

/// The legend of a table of changes of one `sense`; `threshold` is a fraction (0.05). Each
/// mark with its word and the rule behind it.
pub fn change_legend(threshold: f64, sense: Sense) -> Vec<String> {
    let (up, down) = (Verdict::Above, Verdict::Below);
    let pct = pct_threshold(threshold);
    // "is faster" but "costs less": the verb is in the cost words already.
    let (good, bad) = match sense {
        Sense::Throughput => ("is faster", "is slower"),
        Sense::Cost => ("costs less", "costs more"),
    };
    vec![
        format!(
            "{UP} {} / {DOWN} {}: new / base is beyond 1 ± {pct} and its 95% interval excludes 1.0; \
             {WITHIN_MARK} {WITHIN}: the whole interval of new / base lies within [{}, {}] (ends included); \
             {NOT_RESOLVED_MARK} {NOT_RESOLVED}: anything else (the interval reaches past ±{pct} without a change called, or fewer than 3 rounds).",
            word(up, sense),
            word(down, sense),
            ratio(1.0 - threshold),
            ratio(1.0 + threshold),
        ),
        format!(
            "Colour (HTML): green where the new variant {good}, red where it {bad}, only when a change is called."
        ),
    ]
}

/// The threshold as a study states it: 0.05 → "5%", 0.025 → "2.5%".
pub fn pct_threshold(x: f64) -> String {
    let p = x * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
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
            Value::List { items, sep } => items.join(sep),
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

    fn change(ratio: f64, low: f64, high: f64, verdict: Verdict) -> Change {
        Change::throughput(Comparison {
            ratio,
            low,
            high,
            verdict,
            rounds: 5,
            spread: 0.05,
        })
    }

    #[test]
    fn a_slower_variant_reads_below_one_with_a_down_mark() {
        let c = change(0.8, 0.75, 0.85, Verdict::Below);
        assert_eq!(c.mark(), "▼");
        assert_eq!(c.word(), "slower");
        assert_eq!(c.tone(), Tone::Worse);
        assert_eq!(Value::Change(c).text(), "0.800 [0.750, 0.850] ▼");
    }

    #[test]
    fn a_cost_that_rises_costs_more_and_is_worse() {
        let mut c = change(1.2, 1.1, 1.3, Verdict::Above);
        c.sense = Sense::Cost;
        assert_eq!(
            (c.word(), c.mark(), c.tone()),
            ("costs more", "▲", Tone::Worse)
        );
        let legend = change_legend(0.05, Sense::Cost);
        assert!(
            legend[0].starts_with("▲ costs more / ▼ costs less:"),
            "{legend:?}"
        );
        assert!(
            legend[1].contains("green where the new variant costs less, red where it costs more"),
            "{legend:?}"
        );
    }

    #[test]
    fn the_legend_states_the_threshold_band() {
        let legend = change_legend(0.05, Sense::Throughput);
        assert!(legend[0].starts_with("▲ faster / ▼ slower: new / base is beyond 1 ± 5%"));
        assert!(legend[0].contains("≈ within threshold: the whole interval of new / base lies within [0.950, 1.050] (ends included)"), "{legend:?}");
        assert!(
            legend[0].contains("? not resolved: anything else"),
            "{legend:?}"
        );
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
        let c = change(1.1, f64::NAN, f64::NAN, Verdict::NotResolved);
        assert_eq!(Value::Change(c).text(), "1.100 ?");
    }
}
