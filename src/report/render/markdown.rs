//! Markdown: the report for the terminal and for pasting into issues.

use crate::report::findings::{self, frames_that_grew, glance};
use crate::report::grid::{Kind, Table};
use crate::report::subject::Subject;
use crate::report::tables::{measurements, provenance, sections};
use std::fmt::Write;

/// Pipes and newlines would break a Markdown table row.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn table(t: &Table) -> String {
    table_with_note(t, &t.note)
}

/// The table at a glance fits a terminal of 100 columns: its note wrapped (Markdown joins
/// the lines of a paragraph again).
pub fn glance_table(t: &Table) -> String {
    table_with_note(t, &wrapped(&t.note, GLANCE_WIDTH))
}

/// The width the table at a glance fits in.
pub const GLANCE_WIDTH: usize = 100;

/// `text` broken at spaces into lines of at most `width` characters (a longer word alone).
fn wrapped(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let wide = line.chars().count() + 1 + word.chars().count();
        if !line.is_empty() && wide > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines.join("\n")
}

fn table_with_note(t: &Table, note: &str) -> String {
    let mut s = format!("### {}\n\n{note}\n\n", t.title);
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

fn notes(subject: &Subject) -> String {
    let mut s = String::new();
    if !subject.results.notes.is_empty() {
        s.push_str("\n### Notes\n\n");
        for n in &subject.results.notes {
            let _ = writeln!(s, "- {}", n.replace('\n', " "));
        }
    }
    s
}

/// A heading, the table at a glance and the findings under it, then the tables.
fn tables_of<'a>(title: String, lead: &str, tables: impl Iterator<Item = &'a Table>) -> String {
    let mut s = format!("## {title}\n{lead}");
    for t in tables {
        s.push('\n');
        s.push_str(&table(t));
    }
    s
}

/// What opens every report: the table at a glance, then the Findings in their three parts (a
/// line per variant, what stands out, the caveats).
fn answer(subject: &Subject) -> String {
    let running = subject
        .running
        .as_ref()
        .map(|r| format!("\n**{r}**: the report so far, rewritten after each round.\n"))
        .unwrap_or_default();
    let mut s = format!("{running}\n{}", glance_table(&glance::table(subject)));
    if let Some(c) = crate::report::published::counts(subject) {
        let _ = writeln!(s, "\nPublished figures: {}.", c.line());
    }
    let f = findings::sections(subject);
    let published = crate::report::published::table(subject)
        .map(|t| format!("\n{}", table(&t)))
        .unwrap_or_default();
    if f.is_empty() {
        return s + &published;
    }
    s.push_str("\n### Findings\n\n");
    let list = |s: &mut String, lines: &[String]| {
        for l in lines {
            let _ = writeln!(s, "- {l}");
        }
    };
    list(&mut s, &f.per_variant);
    if !f.standing_out.is_empty() {
        s.push_str("\nWhat stands out:\n\n");
        list(&mut s, &f.standing_out);
    }
    if !f.caveats.is_empty() {
        s.push('\n');
        list(&mut s, &f.caveats);
    }
    s + &published
}

/// The whole report (summary.md): findings, measurements, then provenance and notes.
pub fn summary(subject: &Subject) -> String {
    let described: String = provenance::all(subject)
        .iter()
        .map(|t| format!("\n{}", table(t)))
        .collect();
    tables_of(
        subject.title(),
        &answer(subject),
        sections::measurements(subject).iter(),
    ) + &profiles(subject)
        + &described
        + &notes(subject)
}

/// The frames that grew per transaction (profiled studies), after the relative tables; its
/// headings one level down, under the study's. A comparison of two documents has none.
fn profiles(subject: &Subject) -> String {
    if subject.sources.len() != 1 {
        return String::new();
    }
    match frames_that_grew::section(&subject.results) {
        Some(section) => {
            section
                .lines()
                .map(|l| match l.starts_with('#') {
                    true => format!("\n#{l}"),
                    false => format!("\n{l}"),
                })
                .collect::<String>()
                + "\n"
        }
        None => String::new(),
    }
}

/// For the terminal while the study runs: where it stands and the table at a glance so far.
pub fn so_far(subject: &Subject) -> String {
    let running = subject.running.as_deref().unwrap_or("running");
    format!(
        "{running}; the table at a glance so far (partial):\n\n{}",
        glance_table(&glance::table(subject))
    )
}

/// For the terminal: the results and their validity; latency, resources, counters and
/// provenance stay in the files, which a study of many cells would otherwise bury it under.
pub fn headline(subject: &Subject) -> String {
    // A study with data regimes shows them: a result means little without its regime.
    let regimes = crate::report::tables::io_regime::has_regimes(&subject.results)
        .then(|| crate::report::tables::io_regime::table(&subject.results));
    let shown = sections::headline(subject)
        .into_iter()
        .chain(regimes)
        .chain([measurements::validity(subject)])
        .collect::<Vec<_>>();
    tables_of(subject.title(), &answer(subject), shown.iter()) + &notes(subject)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_wrapped_at_spaces_within_the_width() {
        assert_eq!(
            wrapped("aaa bbb ccc dddddddd e", 7),
            "aaa bbb\nccc\ndddddddd\ne"
        );
        assert_eq!(wrapped("one", 100), "one");
    }
}
