//! One self-contained HTML page: tables and inline SVG charts, styles inline, no scripts,
//! fonts or links to fetch, so it opens offline and can be mailed or attached as one file.

use crate::report::charts::{self, Chart};
use crate::report::grid::{escape, num, num_like, Column, Kind, Table, Tone, Value, FLAG, GROUP};
use crate::report::subject::Subject;
use crate::report::{
    charts::cost, charts::sweep, findings::glance, tables::provenance, tables::rounds,
    tables::sections,
};
use anyhow::Result;
use std::fmt::Write;

const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 24px auto; max-width: 1360px; padding: 0 16px; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { margin: 1.4em 0 0.3em; }
p.note { color: #555; margin: 0.2em 0 0.6em; max-width: 70em; }
p.legend { color: #555; font-size: 0.9em; margin: 0.3em 0; overflow-wrap: anywhere; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: 0.4em 0 0.6em; font-size: 0.92em; }
th, td { border: 1px solid #d6d6d6; padding: 3px 8px; vertical-align: top; }
th { background: #f3f4f6; text-align: left; }
th.num { text-align: right; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.label { white-space: nowrap; }
div.wide { overflow-x: auto; max-width: 100%; }
td small { color: #666; }
td.better { background: #d9f2d9; }
td.worse { background: #f9d6d5; }
td.missing { color: #999; text-align: center; }
span.flag { color: #b35c00; }
td.long { min-width: 14em; max-width: 40em; overflow-wrap: anywhere; }
td.list { white-space: nowrap; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
figure.chart { margin: 0; border: 1px solid #e3e3e3; padding: 6px; background: #fff; }
ul.findings li { margin: 0.2em 0; }
ul.findings { margin: 0.3em 0; padding-left: 1.4em; }
p.standing { margin: 0.6em 0 0; font-weight: 600; }
ul.caveats { color: #555; font-size: 0.92em; margin: 0.4em 0; padding-left: 1.4em; list-style: none; }
table.glance td.label { font-weight: 600; }
table.glance { font-size: 0.84em; line-height: 1.25; }
table.glance td, table.glance th { padding: 2px 6px; }
p.glance-note { font-size: 0.82em; margin-top: 0.3em; }
h2.first { margin-top: 0.8em; }
ul.per-variant li { margin: 0; line-height: 1.3; }
th.group { text-align: center; border-bottom: none; }
figure.chart figcaption { color: #555; font-size: 0.85em; max-width: 640px; }
details pre { font-size: 0.85em; background: #f7f7f7; padding: 8px; overflow-x: auto; }
"#;

fn cell(v: &Value, kind: Kind) -> String {
    match v {
        Value::Flagged(inner) => {
            let td = cell(inner, kind);
            let mark = format!(
                " <span class=\"flag\" title=\"validity flags or failed rounds: see Validity\">{FLAG}</span></td>"
            );
            td.trim_end_matches("</td>").to_string() + &mark
        }
        Value::Missing(why) => format!("<td class=\"missing\">{}</td>", escape(why)),
        Value::List { items, .. } => format!(
            "<td class=\"list\">{}</td>",
            items
                .iter()
                .map(|i| escape(i))
                .collect::<Vec<_>>()
                .join("<br>")
        ),
        // Long text (options, errors, paths) wraps; names and numbers do not.
        Value::Text(s) if kind == Kind::Label && s.chars().count() > 40 => {
            format!("<td class=\"long\">{}</td>", escape(s))
        }
        Value::Text(s) if kind == Kind::Label => format!("<td class=\"label\">{}</td>", escape(s)),
        Value::Text(s) => format!("<td class=\"num\">{}</td>", escape(s)),
        Value::Spread { median, min, max } if min != max => format!(
            "<td class=\"num\">{} <small>[{}–{}]</small></td>",
            num(*median),
            num_like(*min, *median),
            num_like(*max, *median)
        ),
        Value::Change(c) => {
            let class = match c.tone() {
                Tone::Better => "num better",
                Tone::Worse => "num worse",
                Tone::Same | Tone::Unknown => "num",
            };
            // The verdict's word on hover, as the legend and the CSV say it.
            format!(
                "<td class=\"{class}\" title=\"{}\">{}</td>",
                c.word(),
                escape(&v.text())
            )
        }
        _ => format!("<td class=\"num\">{}</td>", escape(&v.text())),
    }
}

/// A table's heading and note.
fn heading(t: &Table) -> String {
    format!(
        "<h3 id=\"{}\">{}</h3>\n<p class=\"note\">{}</p>\n",
        escape(&t.id),
        escape(&t.title),
        escape(&t.note)
    )
}

/// A table's rows and legend.
fn body(t: &Table) -> String {
    let mut s = String::new();
    if t.rows.is_empty() {
        let _ = writeln!(s, "<p>{}</p>", escape(&t.when_empty));
        return s;
    }
    s.push_str(&format!(
        "<div class=\"wide\"><table class=\"{}\">\n",
        escape(&t.id)
    ));
    s.push_str(&header(&t.columns));
    for row in &t.rows {
        s.push_str("<tr>");
        for (v, c) in row.iter().zip(&t.columns) {
            s.push_str(&cell(v, c.kind));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table></div>\n");
    for l in &t.legend {
        let _ = writeln!(s, "<p class=\"legend\">{}</p>", escape(l));
    }
    s
}

/// The header row, or two when columns name their group: the group once over its run of
/// columns, each column's own name under it.
fn header(columns: &[Column]) -> String {
    let class = |c: &Column| match c.kind {
        Kind::Label => "",
        _ => " class=\"num\"",
    };
    let split = |c: &Column| -> (String, String) {
        match c.name.split_once(GROUP) {
            Some((g, n)) => (g.to_string(), n.to_string()),
            None => (String::new(), c.name.clone()),
        }
    };
    let mut s = String::new();
    if columns.iter().any(|c| c.name.contains(GROUP)) {
        s.push_str("<tr>");
        let mut i = 0;
        while i < columns.len() {
            let g = split(&columns[i]).0;
            let run = columns[i..].iter().take_while(|c| split(c).0 == g).count();
            let _ = write!(
                s,
                "<th colspan=\"{run}\" class=\"group\">{}</th>",
                escape(&g)
            );
            i += run;
        }
        s.push_str("</tr>\n");
    }
    s.push_str("<tr>");
    for c in columns {
        let _ = write!(s, "<th{}>{}</th>", class(c), escape(&split(c).1));
    }
    s.push_str("</tr>\n");
    s
}

pub fn table(t: &Table) -> String {
    heading(t) + &body(t)
}

/// A long table folded away under its heading, which links still reach.
fn folded(t: &Table) -> String {
    if t.rows.is_empty() {
        return table(t);
    }
    format!(
        "{}<details><summary>Show the {} rows</summary>\n{}</details>\n",
        heading(t),
        t.rows.len(),
        body(t)
    )
}

fn figure(c: &Chart) -> String {
    format!(
        "<figure class=\"chart\" data-kind=\"{}\" data-series=\"{}\">\n{}\n<figcaption>{}</figcaption>\n</figure>\n",
        c.kind,
        c.series,
        c.svg,
        escape(&c.caption)
    )
}

/// Every variant's full effective variables, folded away: the record, not the reading.
fn all_variables(s: &Subject) -> String {
    let mut out = String::new();
    for (name, p) in &s.results.variants {
        let mut text = String::new();
        for (k, v) in &p.variables {
            let _ = writeln!(text, "{k} = {v}");
        }
        let _ = writeln!(
            out,
            "<details><summary>All effective variables of {} ({})</summary><pre>{}</pre></details>",
            escape(name),
            p.variables.len(),
            escape(&text)
        );
    }
    out
}

/// The answer first: the table at a glance, then the Findings in their three parts.
fn answer(s: &Subject) -> String {
    // The table first; how to read it under it, in small print, so the Findings still fit
    // on the first screen.
    let t = glance::table(s);
    let running = s
        .running
        .as_ref()
        .map(|r| {
            format!(
                "<p class=\"running\"><strong>{}</strong>: the report so far, rewritten after each round.</p>\n",
                escape(r)
            )
        })
        .unwrap_or_default();
    let mut h = format!(
        "{running}<h3 id=\"{}\">{}</h3>\n{}<p class=\"note glance-note\">{}</p>\n",
        escape(&t.id),
        escape(&t.title),
        body(&t),
        escape(&t.note)
    );
    if let Some(c) = crate::report::published::counts(s) {
        let _ = writeln!(
            h,
            "<p class=\"glance-published\"><a href=\"#published\">Published figures</a>: {}.</p>",
            escape(&c.line())
        );
    }
    let f = crate::report::findings::sections(s);
    h.push_str("<h2 id=\"findings\" class=\"first\">Findings</h2>\n");
    if f.is_empty() {
        h.push_str("<p class=\"note\">No results to compare yet.</p>\n");
        return h;
    }
    let list = |h: &mut String, class: &str, lines: &[String]| {
        let _ = writeln!(h, "<ul class=\"{class}\">");
        for l in lines {
            let _ = writeln!(h, "<li>{}</li>", escape(l));
        }
        h.push_str("</ul>\n");
    };
    list(&mut h, "findings per-variant", &f.per_variant);
    if !f.standing_out.is_empty() {
        h.push_str("<p class=\"standing\">What stands out</p>\n");
        list(&mut h, "findings standing-out", &f.standing_out);
    }
    if !f.caveats.is_empty() {
        list(&mut h, "caveats", &f.caveats);
    }
    if let Some(t) = crate::report::published::table(s) {
        // A study of many figures (a thread sweep's) folds them under the heading.
        h.push_str(&match t.rows.len() > 12 {
            true => folded(&t),
            false => table(&t),
        });
    }
    h
}

pub fn render(s: &Subject) -> Result<String> {
    let (headline, details) = (sections::headline(s), sections::details(s));
    let provenance = provenance::all(s);
    let charts = charts::all(s)?;
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(&format!("psbench: {}", s.results.study.name)),
        escape(&s.title())
    );
    // The answer first; then the results, charts, and the tables that explain or check them.
    h.push_str(&answer(s));
    h.push_str("<nav>");
    let link = |h: &mut String, id: &str, title: &str| {
        let _ = write!(h, "<a href=\"#{}\">{}</a>", escape(id), escape(title));
    };
    for t in &headline {
        link(&mut h, &t.id, &t.title);
    }
    if !charts.is_empty() {
        link(&mut h, "charts", "Charts");
    }
    for t in details.iter().chain(&provenance) {
        link(&mut h, &t.id, &t.title);
    }
    h.push_str("</nav>\n");
    h.push_str("<h2>Results</h2>\n");
    for t in &headline {
        h.push_str(&table(t));
        if t.id == "cost" {
            for (step, bars, svg) in cost::charts(s) {
                let _ = writeln!(
                    h,
                    "<figure class=\"chart cost\" data-kind=\"cost-ratio\" data-series=\"{bars}\">{svg}<figcaption>{}: each variant's instructions divided by the base's; the dashed line is 1.0.</figcaption></figure>",
                    escape(&step)
                );
            }
        }
        if t.id == "sweep" {
            for (title, points, svg) in sweep::charts(s) {
                let _ = writeln!(
                    h,
                    "<figure class=\"chart sweep\" data-kind=\"sweep\" data-series=\"{points}\">{svg}<figcaption>{}: each release's instructions with the range of its repeats; a dashed line marks a change of level.</figcaption></figure>",
                    escape(&title)
                );
            }
        }
    }
    if !charts.is_empty() {
        h.push_str("<h2 id=\"charts\">Charts</h2>\n");
        for (step, cs) in &charts {
            let _ = writeln!(h, "<h3>{}</h3>\n<div class=\"charts\">", escape(step));
            for c in cs {
                h.push_str(&figure(c));
            }
            h.push_str("</div>\n");
        }
    }
    h.push_str("<h2>Details</h2>\n");
    for t in &details {
        h.push_str(&if t.id == rounds::ID {
            folded(t)
        } else {
            table(t)
        });
    }
    h.push_str("<h2>Provenance</h2>\n");
    for t in &provenance {
        h.push_str(&table(t));
    }
    if !s.results.notes.is_empty() {
        h.push_str("<h3 id=\"notes\">Notes</h3>\n<ul>\n");
        for n in &s.results.notes {
            let _ = writeln!(h, "<li>{}</li>", escape(n));
        }
        h.push_str("</ul>\n");
    }
    h.push_str(&all_variables(s));
    h.push_str("</body>\n</html>\n");
    Ok(h)
}
