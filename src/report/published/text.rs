//! How a published figure, our figure and a verdict read in the table and the Findings.

use super::judge::{Ours, Verdict};
use super::ours::By;
use super::Point;
use crate::results::published::Figure;

/// The figure as new / base.
pub fn figure(f: &Figure) -> String {
    f.text()
}

pub fn threads(t: &[u32]) -> String {
    match t.is_empty() {
        true => "every count, pooled".into(),
        false => t.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
    }
}

pub fn ours(o: &Ours, by: By) -> String {
    let interval = match o.low.is_finite() && o.high.is_finite() {
        true => format!(" [{:.3}, {:.3}]", o.low, o.high),
        false => " (one round: no interval)".into(),
    };
    format!("{:.3}{interval} {}", o.ratio, by.word())
}

pub fn likely(reasons: &[String]) -> String {
    match reasons.is_empty() {
        true => String::new(),
        false => format!("; likely: {}", reasons.join("; ")),
    }
}

/// The whole verdict: its word, then by how much and why, or why it was not measured.
pub fn verdict(v: &Verdict, reasons: &[String]) -> String {
    match v {
        Verdict::Differs(by) => format!(
            "differs: ours {} its band by {:.1}%{}",
            if *by > 0.0 { "above" } else { "below" },
            by.abs() * 100.0,
            likely(reasons)
        ),
        Verdict::NotMeasured(why) => format!("not measured here: {why}"),
        Verdict::Agrees | Verdict::NotResolved | Verdict::Shown => v.word().to_string(),
    }
}

/// The last point's own word, for the row that also carries the figure's verdict.
pub fn point_word(points: &[Point]) -> &'static str {
    points.last().map_or("", |p| p.verdict.word())
}
