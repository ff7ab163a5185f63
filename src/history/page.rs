//! `psbench history --html FILE`: the history as one self-contained page, offline like
//! report.html: series grouped by engine, step and metric, each with what it keeps constant
//! and one chart — its points in order with their intervals, each change with its size and
//! p-value (or "called by the points' own intervals"), pending changes, accepted points — and
//! its newest point's verdict in `history check`'s words. Series whose newest point is a
//! regression come first; a filter by engine, metric and host class; each point links to its
//! study's report.html while that directory exists.

use super::analysis::{self, CheckVerdict, Options};
use super::store::{History, Series, StoredPoint};
use super::text;
use crate::stats::changes::Change;
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 190.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 22.0;

const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 24px auto; max-width: 1360px; padding: 0 16px; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; padding-bottom: 4px; font-size: 1.2em; }
h3 { margin: 1em 0 0.2em; font-size: 1em; }
p.note, p.key { color: #555; margin: 0.2em 0; }
.filters select { margin: 0 1em 0 0.3em; }
article.series { margin: 0.4em 0 1.2em; }
p.verdict.regression { color: #b00020; font-weight: 600; }
p.verdict.improvement { color: #1b7a1b; }
ul.changes { margin: 0.2em 0; color: #333; font-size: 0.92em; }
li.pending { color: #a05a00; }
svg text { font-family: sans-serif; font-size: 11px; }
"#;

/// What the page says of a series' newest point: `history check`'s line, or why there is none.
fn verdict(series: &Series, points: &[StoredPoint], o: &Options) -> (CheckVerdict, String) {
    match analysis::check(&series.key, points, o) {
        None => (
            CheckVerdict::NoInterval,
            "a single point: nothing to check it against".into(),
        ),
        Some(c) => {
            let line = text::check_line(series, points, &c).unwrap_or_else(|| match c.verdict {
                CheckVerdict::Accepted => "newest point accepted as the new level".into(),
                CheckVerdict::NoInterval => {
                    "newest point without an interval (one round): nothing can be called".into()
                }
                _ => "unchanged: the newest point is within the threshold of its level".into(),
            });
            (c.verdict, line)
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A point's study report, while its results directory is there.
fn report_of(p: &StoredPoint) -> Option<String> {
    let doc = Path::new(&p.document);
    let dir = if doc.is_dir() { doc } else { doc.parent()? };
    let report = dir.join("report.html");
    report
        .is_file()
        .then(|| format!("file://{}", report.display()))
}

/// One series' chart: points with their intervals, changes and pending changes as vertical
/// lines with their size, accepted points as squares.
fn chart(points: &[StoredPoint], changes: &[Change]) -> String {
    let n = points.len().max(2) as f64;
    let (lo, hi) = points
        .iter()
        .flat_map(|p| {
            let (a, b) = p.point.interval.unwrap_or((p.point.value, p.point.value));
            [a, b, p.point.value]
        })
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.002).max(1e-9);
    let (lo, hi) = (lo - pad, hi + pad);
    let x = |i: usize| LEFT + (WIDTH - LEFT - RIGHT) * (i as f64 + 0.5) / n;
    let y = |v: f64| TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - (v - lo) / (hi - lo));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\">\
         <line x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{TOP}\" y2=\"{}\" stroke=\"#999\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        HEIGHT - BOTTOM,
        LEFT - 4.0,
        TOP + 8.0,
        text::number(hi),
        LEFT - 4.0,
        HEIGHT - BOTTOM,
        text::number(lo)
    );
    let _ = write!(
        s,
        "<text x=\"{LEFT}\" y=\"{}\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        HEIGHT - 6.0,
        escape(&points.first().map(|p| p.point.release.clone()).unwrap_or_default()),
        WIDTH - RIGHT,
        HEIGHT - 6.0,
        escape(&points.last().map(|p| p.point.release.clone()).unwrap_or_default())
    );
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.point.value)))
        .collect();
    let _ = write!(
        s,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#4e79a7\" stroke-width=\"1.5\"/>",
        line.join(" ")
    );
    let whiskers: String = points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let (a, b) = p.point.interval?;
            Some(format!("M{:.1} {:.1}V{:.1}", x(i), y(a), y(b)))
        })
        .collect();
    if !whiskers.is_empty() {
        let _ = write!(
            s,
            "<path d=\"{whiskers}\" stroke=\"#9fb8d3\" stroke-width=\"2\"/>"
        );
    }
    for c in changes {
        let at = (x(c.index - 1) + x(c.index)) / 2.0;
        let (colour, dash, what) = match c.pending {
            0 => ("#b00020", "4 3", "change"),
            _ => ("#a05a00", "2 3", "pending change"),
        };
        let p = match (c.pending, c.p_value) {
            (0, Some(p)) => format!("p {p:.1e}"),
            (0, None) => "called by the points' own intervals".into(),
            (k, _) => format!("pending: {k} more point{}", if k == 1 { "" } else { "s" }),
        };
        let _ = write!(
            s,
            "<g class=\"{}\"><line x1=\"{at:.1}\" x2=\"{at:.1}\" y1=\"{TOP}\" y2=\"{}\" stroke=\"{colour}\" stroke-dasharray=\"{dash}\"/>\
             <text x=\"{:.1}\" y=\"{}\" fill=\"{colour}\">{} {}</text><title>{what}: {} {}</title></g>",
            what.replace(' ', "-"),
            HEIGHT - BOTTOM,
            at + 3.0,
            TOP + 10.0,
            text::percent(c.magnitude),
            escape(&p),
            text::percent(c.magnitude),
            escape(&p)
        );
    }
    // Each point is on the line; a point of its own only where there is more to say: the
    // newest, an accepted one, one whose study's report is there to link.
    let last = points.len().saturating_sub(1);
    for (i, p) in points.iter().enumerate() {
        let href = report_of(p);
        if i != last && p.accepted.is_none() && href.is_none() {
            continue;
        }
        let title = format!(
            "point {} ({}, {}): {}{}{}",
            p.id,
            p.point.release,
            text::date(p.point.date_unix),
            text::number(p.point.value),
            p.point
                .interval
                .map(|(a, b)| format!(" [{}, {}]", text::number(a), text::number(b)))
                .unwrap_or_default(),
            p.accepted
                .as_ref()
                .map(|(who, why)| format!("; accepted by {who}: {why}"))
                .unwrap_or_default()
        );
        let mark = match p.accepted {
            Some(_) => format!(
                "<rect class=\"accepted\" x=\"{:.1}\" y=\"{:.1}\" width=\"7\" height=\"7\" fill=\"#1b7a1b\"><title>{}</title></rect>",
                x(i) - 3.5,
                y(p.point.value) - 3.5,
                escape(&title)
            ),
            None => format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"#4e79a7\"><title>{}</title></circle>",
                x(i),
                y(p.point.value),
                escape(&title)
            ),
        };
        match href {
            Some(href) => {
                let _ = write!(s, "<a href=\"{}\">{mark}</a>", escape(&href));
            }
            None => s.push_str(&mark),
        }
    }
    s.push_str("</svg>");
    s
}

/// A filter's choices.
fn select(id: &str, what: &str, values: &[String]) -> String {
    let mut s = format!("<label>{what}<select id=\"{id}\"><option value=\"\">all</option>");
    for v in values {
        let _ = write!(s, "<option>{}</option>", escape(v));
    }
    s + "</select></label>"
}

/// Shows only the series the three filters allow, and only the groups with one left.
const FILTER_SCRIPT: &str = r#"<script>
const picks = ['engine', 'metric', 'host'].map(k => [k, document.getElementById('f-' + k)]);
function apply() {
  document.querySelectorAll('article.series').forEach(a => {
    a.hidden = picks.some(([k, s]) => s.value && a.dataset[k] !== s.value);
  });
  document.querySelectorAll('section.group').forEach(g => {
    g.hidden = !g.querySelector('article.series:not([hidden])');
  });
}
picks.forEach(([, s]) => s.addEventListener('change', apply));
</script>"#;

pub fn render(path: &Path, o: &Options) -> Result<String> {
    let h = History::existing(path)?;
    let series = h.series()?;
    let mut every = h.all_points()?;
    // (engine, step, metric) → its series, each with its points, changes and verdict.
    type Entry = (
        Series,
        Vec<StoredPoint>,
        Vec<Change>,
        (CheckVerdict, String),
    );
    let mut groups: BTreeMap<(String, String, String), Vec<Entry>> = BTreeMap::new();
    let mut count = 0;
    for s in series {
        let points = every.remove(&s.id).unwrap_or_default();
        if points.is_empty() {
            continue;
        }
        count += points.len();
        let changes = analysis::changes(&s.key, &points, o);
        let v = verdict(&s, &points, o);
        let key = (
            s.key.engine.clone(),
            s.key.step.clone(),
            s.key.metric.name(),
        );
        groups.entry(key).or_default().push((s, points, changes, v));
    }
    let regression = |e: &Entry| e.3 .0 == CheckVerdict::Regression;
    let mut ordered: Vec<((String, String, String), Vec<Entry>)> = groups.into_iter().collect();
    for (_, entries) in &mut ordered {
        entries.sort_by_key(|e| !regression(e));
    }
    ordered.sort_by_key(|(_, entries)| !entries.iter().any(regression));
    let distinct = |f: &dyn Fn(&Entry) -> String| {
        let mut v: Vec<String> = ordered
            .iter()
            .flat_map(|(_, es)| es.iter().map(f))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let engines = distinct(&|e| e.0.key.engine.clone());
    let metrics = distinct(&|e| e.0.key.metric.name());
    let hosts = distinct(&|e| e.0.key.host_class.clone());
    let series_count: usize = ordered.iter().map(|(_, es)| es.len()).sum();
    let regressions: usize = ordered
        .iter()
        .map(|(_, es)| es.iter().filter(|e| regression(e)).count())
        .sum();
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>psbench history</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>Results history</h1>\n<p class=\"note\">{}: {series_count} series, {count} points, {regressions} whose newest point is a regression (first). Changes are found as <code>psbench history</code> finds them; a pending change is placed where it is and called once enough points follow it.</p>\n\
         <p class=\"filters\">{}{}{}</p>\n",
        escape(&path.display().to_string()),
        select("f-engine", "engine", &engines),
        select("f-metric", "metric", &metrics),
        select("f-host", "host class", &hosts),
    );
    for ((engine, step, metric), entries) in &ordered {
        let _ = writeln!(
            s,
            "<section class=\"group\"><h2>{} · {} · {}</h2>",
            escape(engine),
            escape(step),
            escape(metric)
        );
        for (series, points, changes, (v, line)) in entries {
            let k = &series.key;
            let class = match v {
                CheckVerdict::Regression => "regression",
                CheckVerdict::Improvement => "improvement",
                _ => "unchanged",
            };
            let threads = match k.threads {
                0 => "cost mode".to_string(),
                t => format!("{t} thread{}", if t == 1 { "" } else { "s" }),
            };
            let _ = write!(
                s,
                "<article class=\"series\" id=\"series-{}\" data-engine=\"{}\" data-metric=\"{}\" data-host=\"{}\" data-verdict=\"{class}\">\
                 <h3>series {}: {}, {} points</h3>\
                 <p class=\"key\">servers: {}; settings: {}; workload: {}; host class: {}</p>{}",
                series.id,
                escape(&k.engine),
                escape(&k.metric.name()),
                escape(&k.host_class),
                series.id,
                threads,
                points.len(),
                escape(&k.channel),
                escape(&k.settings),
                escape(&k.workload),
                escape(&k.host_class),
                chart(points, changes)
            );
            if !changes.is_empty() {
                s.push_str("<ul class=\"changes\">");
                for c in changes {
                    let class = if c.called() { "change" } else { "pending" };
                    let _ = write!(
                        s,
                        "<li class=\"{class}\">{}</li>",
                        escape(&text::change_line(c, points))
                    );
                }
                s.push_str("</ul>");
            }
            let _ = writeln!(
                s,
                "<p class=\"verdict {class}\">{}</p></article>",
                escape(line)
            );
        }
        s.push_str("</section>\n");
    }
    if ordered.is_empty() {
        s.push_str("<p>The history is empty: a study adds its results when it finishes.</p>\n");
    }
    s.push_str(FILTER_SCRIPT);
    s.push_str("\n</body>\n</html>\n");
    Ok(s)
}
