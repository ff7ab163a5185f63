//! Markdown: the report for the terminal and for pasting into issues.

use super::grid::{Kind, Table};
use super::subject::Subject;
use super::{provenance, tables};
use std::fmt::Write;

/// Pipes and newlines would break a Markdown table row.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn table(t: &Table) -> String {
    let mut s = format!("### {}\n\n{}\n\n", t.title, t.note);
    if t.rows.is_empty() {
        let _ = writeln!(s, "{}", t.when_empty);
        return s;
    }
    s.push('|');
    for c in &t.columns {
        let _ = write!(s, " {} |", cell(&c.name));
    }
    s.push_str("\n|");
    for c in &t.columns {
        s.push_str(if c.kind == Kind::Label {
            "---|"
        } else {
            "---:|"
        });
    }
    s.push('\n');
    for row in &t.rows {
        s.push('|');
        for v in row {
            let _ = write!(s, " {} |", cell(&v.text()));
        }
        s.push('\n');
    }
    for l in &t.legend {
        let _ = write!(s, "\n{l}\n");
    }
    s
}

/// The whole report: measurements, then provenance and notes.
pub fn summary(subject: &Subject) -> String {
    let mut s = format!("## {}\n", subject.title());
    for t in tables::measurements(subject)
        .iter()
        .chain(provenance::all(subject).iter())
    {
        s.push('\n');
        s.push_str(&table(t));
    }
    if !subject.results.notes.is_empty() {
        s.push_str("\n### Notes\n\n");
        for n in &subject.results.notes {
            let _ = writeln!(s, "- {}", n.replace('\n', " "));
        }
    }
    s
}
