//! One verdict, one word: csv/relative.csv, csv/ratio_by_threads.csv, the Markdown tables'
//! marks (through their legend), the HTML cells and the Findings say the same word for the
//! same (step, threads). Checked on the checked-in study (tests/data/report-study), whose
//! rounds resolve nothing, and on it with throughput replaced so that each (step, threads)
//! gets a different verdict.

use psbench::report::findings::findings;
use psbench::report::{render, render::files, Format, Subject};
use psbench::results::StudyResults;
use std::collections::BTreeMap;
use std::path::Path;

fn fixture() -> StudyResults {
    StudyResults::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study"))
        .expect("the checked-in results document loads")
}

/// default against ps_off: 15% slower at point_select/1, unchanged at point_select/2, noisy
/// at read_only/1 and 15% faster at read_only/2; ps_off drifting down over the rounds.
fn four_verdicts() -> StudyResults {
    let mut r = fixture();
    for c in &mut r.cells {
        let level = 1000.0 * (1.0 - 0.15 * c.key.round as f64) * c.key.threads as f64;
        let k = c.key.round as usize % 3;
        let (factor, wobble) = match (c.key.step.as_str(), c.key.threads) {
            ("point_select", 1) => (0.85, [1.005, 1.0 / 1.005, 1.0][k]),
            ("point_select", _) => (1.0, [1.005, 1.0 / 1.005, 1.0][k]),
            ("read_only", 1) => (1.0, [1.4, 0.7, 1.0][k]),
            _ => (1.15, [1.005, 1.0 / 1.005, 1.0][k]),
        };
        c.ok = true;
        c.flags.clear();
        c.tps = if c.key.variant == "default" {
            level * factor * wobble
        } else {
            level
        };
    }
    r
}

/// (step, threads) → verdict word of a CSV table's single change column.
fn csv_words(s: &Subject, name: &str) -> BTreeMap<(String, u32), String> {
    let csv = files::csv_tables(s)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap()
        .1;
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut out = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        if name == "relative.csv" {
            out.insert((f[0].to_string(), f[1].parse().unwrap()), f[5].to_string());
        } else {
            // step, ratio, then (value, low, high, verdict) per "N thr".
            for (i, h) in header.iter().enumerate() {
                if let Some(t) = h.strip_suffix(" thr verdict") {
                    out.insert((f[0].to_string(), t.parse().unwrap()), f[i].to_string());
                }
            }
        }
    }
    out
}

/// The Markdown table under `title`: its rows and its legend's mark → word.
fn markdown_table<'a>(md: &'a str, title: &str) -> (Vec<Vec<&'a str>>, BTreeMap<String, String>) {
    let section = md
        .split(&format!("### {title}\n"))
        .nth(1)
        .unwrap()
        .split("\n### ")
        .next()
        .unwrap();
    let rows = section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| step"))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect();
    let legend = section
        .lines()
        .find(|l| l.starts_with('▲'))
        .expect("a legend of the marks");
    let mut words = BTreeMap::new();
    // "▲ faster / ▼ slower: …; ≈ within threshold: …; ? not resolved: …"
    for part in legend.split("; ").flat_map(|p| p.split(" / ")) {
        let head = part.split(':').next().unwrap();
        if let Some((mark, word)) = head.split_once(' ') {
            if ["▲", "▼", "≈", "?"].contains(&mark) {
                words.insert(mark.to_string(), word.to_string());
            }
        }
    }
    assert_eq!(words.len(), 4, "{legend}");
    (rows, words)
}

/// The word a Markdown change cell's mark stands for.
fn cell_word(cell: &str, words: &BTreeMap<String, String>) -> String {
    let mark = cell
        .split_whitespace()
        .find(|w| words.contains_key(*w))
        .unwrap_or_else(|| panic!("no mark in {cell:?}"));
    words[mark].clone()
}

/// The Finding about default against ps_off at (step, threads).
fn finding<'a>(f: &'a [String], step: &str, threads: u32) -> &'a str {
    let t = if threads == 1 {
        "1 thread".to_string()
    } else {
        format!("{threads} threads")
    };
    f.iter()
        .filter(|l| l.starts_with(&format!("{step}: default ")) && !l.contains(" costs "))
        .find(|l| {
            // "… at 1 thread and 2 threads: …": the thread counts the sentence is about.
            let at = l.split(" at ").nth(1).unwrap_or("");
            let list = at.split(':').next().unwrap();
            list.split(" and ")
                .flat_map(|x| x.split(", "))
                .any(|x| x == t)
        })
        .unwrap_or_else(|| panic!("no finding for {step} at {t}: {f:#?}"))
}

/// Check every format against relative.csv; returns the words seen.
fn same_word_everywhere(s: &Subject) -> Vec<String> {
    let relative = csv_words(s, "relative.csv");
    assert_eq!(relative, csv_words(s, "ratio_by_threads.csv"));
    let md = render(s, Format::Md).unwrap();
    let (rows, words) = markdown_table(&md, "Throughput relative to the base");
    for row in &rows {
        let key = (row[0].to_string(), row[1].parse().unwrap());
        assert_eq!(cell_word(row[2], &words), relative[&key], "{row:?}");
    }
    assert_eq!(rows.len(), relative.len());
    let (rows, words) = markdown_table(&md, "Ratio per thread count");
    for row in &rows {
        for (i, t) in [1u32, 2].iter().enumerate() {
            let key = (row[0].to_string(), *t);
            assert_eq!(cell_word(row[2 + i], &words), relative[&key], "{row:?}");
        }
    }
    let f = findings(s);
    for ((step, t), word) in &relative {
        // A change resolved as none is said in the variant's own line, once per variant
        // (the tables give every cell): no sentence of its own.
        if word == "within threshold" {
            assert!(
                f.iter().any(|l| l.starts_with("default against ps_off: ")),
                "{f:#?}"
            );
            continue;
        }
        let line = finding(&f, step, *t);
        let said = match word.as_str() {
            "faster" | "slower" => format!(" {word} than ps_off"),
            other => format!(" {other} "),
        };
        assert!(line.contains(&said), "{step} {t}: {word:?} not in {line:?}");
    }
    // HTML: the word on each change cell; as many as the two tables have cells.
    let html = render(s, Format::Html).unwrap();
    for word in relative.values() {
        assert!(html.contains(&format!("title=\"{word}\"")), "{word}");
    }
    relative.values().cloned().collect()
}

#[test]
fn the_fixture_says_not_resolved_in_every_format() {
    let words = same_word_everywhere(&Subject::study(fixture(), "fixture"));
    assert!(words.iter().all(|w| w == "not resolved"), "{words:?}");
}

#[test]
fn each_of_the_four_words_is_the_same_in_every_format() {
    let words = same_word_everywhere(&Subject::study(four_verdicts(), "synthetic"));
    assert_eq!(
        words,
        ["slower", "within threshold", "not resolved", "faster"],
        "point_select 1, 2; read_only 1, 2"
    );
    // With two rounds nothing is resolved, and every format says so.
    let mut two = four_verdicts();
    two.cells.retain(|c| c.key.round < 2);
    two.study.rounds = 2;
    let words = same_word_everywhere(&Subject::study(two, "two rounds"));
    assert!(words.iter().all(|w| w == "not resolved"), "{words:?}");
}
