//! The history as `psbench history` prints it: the series, one series' points and changes,
//! the check's verdicts, and a series as CSV.

use super::analysis::{self, CheckVerdict, Checked, Options};
use super::store::{History, Series, StoredPoint};
use crate::stats::changes::Change;
use anyhow::Result;
use std::fmt::Write;

/// Every series, two lines each: what it measures and its newest point, then what it keeps
/// constant.
pub fn list(h: &History, o: &Options) -> Result<String> {
    let all = h.series()?;
    let mut every = h.all_points()?;
    let mut s = String::new();
    for series in &all {
        let points = every.remove(&series.id).unwrap_or_default();
        let Some(newest) = points.last() else {
            continue;
        };
        let k = &series.key;
        let changes = analysis::changes(k, &points, o);
        let found = changes.len();
        let pending = match changes.iter().filter(|c| !c.called()).count() {
            0 => String::new(),
            n => format!(" ({n} pending)"),
        };
        let _ = writeln!(
            s,
            "{:>4}  {} {} {}, {}: {} points, newest {} ({}), {} change{}{pending}",
            series.id,
            k.engine,
            k.step,
            threads(k.threads),
            k.metric.name(),
            points.len(),
            number(newest.point.value),
            newest.point.release,
            found,
            if found == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            s,
            "      {}; {}; {}; {}",
            k.channel, k.settings, k.workload, k.host_class
        );
    }
    if all.is_empty() {
        s.push_str("The history is empty: a study adds its results when it finishes (`psbench history import DIR` adds earlier ones).\n");
    }
    Ok(s)
}

/// One series: its key, its points in order and its changes.
pub fn show(series: &Series, points: &[StoredPoint], o: &Options) -> String {
    let k = &series.key;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "series {}: {} {} {}, {}",
        series.id,
        k.engine,
        k.step,
        threads(k.threads),
        k.metric.name()
    );
    for (what, v) in [
        ("servers", &k.channel),
        ("settings", &k.settings),
        ("workload", &k.workload),
        ("host", &k.host_class),
    ] {
        let _ = writeln!(s, "  {what}: {v}");
    }
    let _ = writeln!(
        s,
        "\n{:>6}  {:<10}  {:<28}  {:>12}  {:<25}  {:>6}  document",
        "point", "date", "release", "value", "interval", "rounds"
    );
    for p in points {
        let interval = p
            .point
            .interval
            .map(|(l, h)| format!("[{}, {}]", number(l), number(h)))
            .unwrap_or_else(|| "—".into());
        let accepted = p
            .accepted
            .as_ref()
            .map(|(who, why)| format!("  (accepted by {who}: {why})"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{:>6}  {:<10}  {:<28}  {:>12}  {:<25}  {:>6}  {} ({}){accepted}",
            p.id,
            date(p.point.date_unix),
            p.point.release,
            number(p.point.value),
            interval,
            p.point.rounds,
            p.document,
            p.point.variant
        );
    }
    let found = analysis::changes(k, points, o);
    let _ = writeln!(s);
    if found.is_empty() {
        let _ = writeln!(s, "No change in {} points.", points.len());
    }
    for c in &found {
        let _ = writeln!(s, "{}", change_line(c, points));
    }
    s
}

/// `change between point 12 (10.11.5, 2026-11-20) and point 13 (11.4.5, 2026-11-21): …`, or
/// `pending change …; 3 more points call it` while too few points follow it.
pub fn change_line(c: &Change, points: &[StoredPoint]) -> String {
    let (before, after) = (&points[c.index - 1], &points[c.index]);
    let p = match c.p_value {
        Some(p) => format!("p = {p:.2e}"),
        None => "called by the points' own intervals".into(),
    };
    let (word, tail) = match c.pending {
        0 => ("change", String::new()),
        1 => ("pending change", "; 1 more point calls it".to_string()),
        n => ("pending change", format!("; {n} more points call it")),
    };
    format!(
        "{word} between point {} ({}, {}) and point {} ({}, {}): mean {} before, {} after, {} [{}, {}], {p}{tail}",
        before.id,
        before.point.release,
        date(before.point.date_unix),
        after.id,
        after.point.release,
        date(after.point.date_unix),
        number(c.mean_before),
        number(c.mean_after),
        percent(c.magnitude),
        percent(c.magnitude_low),
        percent(c.magnitude_high),
    )
}

/// One line of the check for a series whose newest point is not unchanged.
pub fn check_line(series: &Series, points: &[StoredPoint], c: &Checked) -> Option<String> {
    let word = match c.verdict {
        CheckVerdict::Regression => "regression",
        CheckVerdict::Improvement => "improvement",
        CheckVerdict::Unchanged | CheckVerdict::NoInterval | CheckVerdict::Accepted => return None,
    };
    let k = &series.key;
    let p = &points[c.newest];
    Some(format!(
        "{word}: series {} ({} {} {}, {}): point {} ({}) is {} against {} (the mean of the {} point{} since the last change), beyond {}",
        series.id,
        k.engine,
        k.step,
        threads(k.threads),
        k.metric.name(),
        p.id,
        p.point.release,
        percent(c.change),
        number(c.level),
        c.level_points,
        if c.level_points == 1 { "" } else { "s" },
        percent(c.threshold).trim_start_matches('+'),
    ))
}

/// A series' points as CSV, one row per point.
pub fn csv(points: &[StoredPoint]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "point",
        "date",
        "release",
        "binary_sha256",
        "source",
        "value",
        "low",
        "high",
        "rounds",
        "psbench_version",
        "document",
        "variant",
        "accepted_by",
        "accepted_why",
    ])?;
    for p in points {
        let (low, high) = p
            .point
            .interval
            .map(|(l, h)| (l.to_string(), h.to_string()))
            .unwrap_or_default();
        let (who, why) = p.accepted.clone().unwrap_or_default();
        w.write_record([
            p.id.to_string(),
            date(p.point.date_unix),
            p.point.release.clone(),
            p.point.binary_sha256.clone(),
            p.point.source.clone().unwrap_or_default(),
            p.point.value.to_string(),
            low,
            high,
            p.point.rounds.to_string(),
            p.tool_version.clone(),
            p.document.clone(),
            p.point.variant.clone(),
            who,
            why,
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

fn threads(t: u32) -> String {
    if t == 0 {
        "(cost mode)".into()
    } else {
        format!("at {t} thread{}", if t == 1 { "" } else { "s" })
    }
}

/// 39,282 or 9,984.5: counts without decimals, small values with one.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let whole = v.round() as i64;
    let digits = whole.abs().to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if whole < 0 { "-" } else { "" };
    if v.abs() < 100.0 {
        format!("{v:.1}")
    } else {
        format!("{sign}{grouped}")
    }
}

pub fn percent(x: f64) -> String {
    format!("{:+.1}%", x * 100.0)
}

/// `2026-11-27` (UTC).
pub fn date(unix: u64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(unix);
    humantime::format_rfc3339_seconds(t).to_string()[..10].to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_and_numbers_read_as_written() {
        assert_eq!(super::date(0), "1970-01-01");
        assert_eq!(super::date(1_795_737_600), "2026-11-27");
        assert_eq!(super::number(39282.4), "39,282");
        assert_eq!(super::number(12.34), "12.3");
    }
}
