//! Rendering the report of a small real study (tests/data/report-study): golden files for the
//! stable formats (Markdown, CSV, Go benchmark text), the numbers against the rounds, and
//! `compare` of two documents. Set PSBENCH_UPDATE_GOLDEN=1 to rewrite the golden files after
//! an intended change, and review the diff.

use psbench::report::{compare, render, Format, Subject};
use psbench::results::StudyResults;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FIXTURE: &str = "tests/data/report-study";

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)
}

fn fixture() -> StudyResults {
    StudyResults::load(&fixture_dir()).expect("the checked-in results document loads")
}

fn subject() -> Subject {
    Subject::study(fixture(), FIXTURE)
}

fn golden(name: &str, actual: &str) {
    let path = fixture_dir().join("golden").join(name);
    if std::env::var_os("PSBENCH_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (PSBENCH_UPDATE_GOLDEN=1 writes it)",
            path.display()
        )
    });
    let same_lines = expected.lines().count() == actual.lines().count();
    if !same_lines
        || expected
            .lines()
            .zip(actual.lines())
            .any(|(a, b)| !same(a, b))
    {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| !same(a, b))
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from {} at line {}:\n expected: {:?}\n actual:   {:?}\n(PSBENCH_UPDATE_GOLDEN=1 rewrites it)",
            path.display(),
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

/// Two lines alike but for the last bits of a float (a sum taken in another order): every
/// number within 1e-12 of its golden value, every other character the same.
fn same(expected: &str, actual: &str) -> bool {
    let split =
        |l: &str| -> Vec<String> { l.split([',', ' ', '|', '"']).map(str::to_string).collect() };
    let (e, a) = (split(expected), split(actual));
    e.len() == a.len()
        && e.iter().zip(&a).all(|(x, y)| {
            x == y
                || matches!((x.parse::<f64>(), y.parse::<f64>()), (Ok(x), Ok(y))
                    if (x - y).abs() <= 1e-12 * x.abs().max(y.abs()))
        })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if !n.is_multiple_of(2) {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// tps of the successful rounds per (step, threads, variant), straight from the document.
fn rounds_tps(r: &StudyResults) -> BTreeMap<(String, u32, String), Vec<f64>> {
    let mut m: BTreeMap<_, Vec<f64>> = BTreeMap::new();
    for c in r.cells.iter().filter(|c| c.ok) {
        m.entry((c.key.step.clone(), c.key.threads, c.key.variant.clone()))
            .or_default()
            .push(c.tps);
    }
    m
}

#[test]
fn markdown_matches_golden() {
    golden("summary.md", &render(&subject(), Format::Md).unwrap());
}

#[test]
fn csv_matches_golden() {
    golden("tables.csv", &render(&subject(), Format::Csv).unwrap());
}

#[test]
fn go_benchmark_format_matches_golden() {
    golden("bench.txt", &render(&subject(), Format::Gobench).unwrap());
}

#[test]
fn absolute_throughput_is_the_median_and_range_of_the_rounds() {
    let r = fixture();
    let csv = psbench::report::render::files::csv_tables(&subject())
        .into_iter()
        .find(|(n, _)| n == "throughput.csv")
        .unwrap()
        .1;
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut checked = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let (step, threads) = (f[0].to_string(), f[1].parse::<u32>().unwrap());
        for v in ["ps_off", "default"] {
            let col = header
                .iter()
                .position(|h| *h == format!("{v} median"))
                .unwrap();
            let mut tps = rounds_tps(&r)[&(step.clone(), threads, v.to_string())].clone();
            let want_min = tps.iter().copied().fold(f64::INFINITY, f64::min);
            let want_max = tps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let got: Vec<f64> = f[col..col + 3].iter().map(|x| x.parse().unwrap()).collect();
            assert_eq!(got, vec![median(&mut tps), want_min, want_max], "{line}");
            checked += 1;
        }
    }
    assert_eq!(checked, 2 * 2 * 2, "steps × threads × variants");
}

#[test]
fn go_benchmark_text_has_config_then_a_line_per_round() {
    let r = fixture();
    let text = render(&subject(), Format::Gobench).unwrap();
    let first_bench = text
        .lines()
        .position(|l| l.starts_with("Benchmark"))
        .unwrap();
    // Configuration lines, and benchstat's unit lines ("Unit tps better=higher").
    for l in text
        .lines()
        .take(first_bench)
        .filter(|l| !l.is_empty() && !l.starts_with("Unit "))
    {
        let (key, _) = l.split_once(": ").expect("a config line is key: value");
        assert!(
            key.chars().next().unwrap().is_lowercase()
                && !key.chars().any(|c| c.is_whitespace() || c.is_uppercase()),
            "bad config key in {l:?}"
        );
    }
    assert!(text.starts_with("goos: linux\n"));
    let throughput: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("BenchmarkThroughput/"))
        .collect();
    assert_eq!(
        throughput.len(),
        r.cells.iter().filter(|c| c.ok).count(),
        "one line per successful round"
    );
    for l in &throughput {
        let f: Vec<&str> = l.split_whitespace().collect();
        // name, iterations, then value-unit pairs
        assert!(
            f.len().is_multiple_of(2) && f[1].parse::<u64>().is_ok(),
            "{l}"
        );
        assert_eq!(f[3], "tps");
        assert!(
            f[0].contains("/step=") && f[0].contains("/threads=") && f[0].contains("/variant=")
        );
    }
    let cost = text
        .lines()
        .filter(|l| l.starts_with("BenchmarkCost/"))
        .count();
    assert_eq!(cost, r.cost.iter().filter(|c| c.ok).count());
}

#[test]
fn two_documents_of_the_same_rounds_call_no_change() {
    // The same rounds under another seed: the very same document is refused.
    let mut b = fixture();
    b.seed += 1;
    let s = compare::merge(fixture(), "a", b, "b").unwrap();
    let md = render(&s, Format::Md).unwrap();
    assert!(
        md.contains("| B:ps_off / A:ps_off | B:default / A:default |"),
        "{md}"
    );
    let marked = md
        .lines()
        .filter(|l| l.starts_with("| ") && (l.contains('▲') || l.contains('▼')))
        .count();
    assert_eq!(marked, 0, "{md}");
    let csv = render(&s, Format::Csv).unwrap();
    let relative = csv.split("# relative.csv\n").nth(1).unwrap();
    let rows: Vec<&str> = relative
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), 4);
    // Unpaired, three noisy rounds a side give wide intervals around 1.0: nothing resolved.
    for row in rows {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f[2], "1", "{row}");
        assert_eq!(f[5], "not resolved", "{row}");
    }
}

#[test]
fn a_clear_slowdown_is_called_and_marked_in_every_format() {
    let a = fixture();
    let mut b = fixture();
    // Scale B far enough that the whole interval stays below 1.0, whatever the noise of
    // the fixture's rounds: a factor under min/max of the widest cell.
    let widest = rounds_tps(&a)
        .values()
        .map(|v| {
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                / v.iter().copied().fold(f64::INFINITY, f64::min)
        })
        .fold(1.0, f64::max);
    let factor = 0.5 / widest;
    for c in &mut b.cells {
        c.tps *= factor;
    }
    let s = compare::merge(a, "before", b, "after").unwrap();
    let md = render(&s, Format::Md).unwrap();
    let relative: Vec<&str> = md
        .split("### Throughput relative to the base")
        .nth(1)
        .unwrap()
        .split("###")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("| point_select") || l.starts_with("| read_only"))
        .collect();
    assert_eq!(relative.len(), 4);
    for row in relative {
        assert_eq!(row.matches('▼').count(), 2, "both variants slower: {row}");
    }
    // Per thread count the same change reads the same way: new / base below 1, marked ▼.
    let per_threads = md.split("### Ratio per thread count").nth(1).unwrap();
    let rows: Vec<&str> = per_threads
        .split("###")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("| point_select") || l.starts_with("| read_only"))
        .collect();
    assert!(rows
        .iter()
        .any(|r| r.starts_with("| point_select | B:ps_off / A:ps_off |")));
    assert!(
        rows.iter().all(|r| r.contains('▼') && !r.contains('▲')),
        "{rows:#?}"
    );
    let html = render(&s, Format::Html).unwrap();
    assert!(
        html.matches("class=\"num worse\"").count() >= 8,
        "slower cells coloured"
    );
    assert!(!html.contains("class=\"num better\""));
}

#[test]
fn documents_without_common_cells_cannot_be_compared() {
    let a = fixture();
    let mut b = fixture();
    for c in &mut b.cells {
        c.key.variant.push_str("_other");
    }
    for c in &mut b.cost {
        c.variant.push_str("_other");
    }
    for v in &mut b.study.variants {
        v.name.push_str("_other");
    }
    let e = compare::merge(a, "a", b, "b")
        .err()
        .expect("no common cells");
    assert!(psbench::error::is_usage(&e), "{e:#}");
    assert!(format!("{e}").contains("nothing to compare"), "{e}");
}

#[test]
fn a_document_of_two_cost_windows_loads_with_its_windows() {
    // The fixture was written when cost mode kept two windows as `events` and `ir`.
    let r = fixture();
    let c = r.cost.iter().find(|c| c.ok).expect("a cost result");
    assert_eq!(c.windows.len(), 2, "{c:?}");
    assert!(c.windows.iter().all(|w| w.attempt == 1 && w.ir > 0));
    assert_eq!(c.counted_transactions(), 600, "{c:?}");
    let per_txn = (c.windows[1].ir - c.windows[0].ir) as f64 / 600.0;
    assert!((per_txn - c.ir_per_txn).abs() < 1.0, "{c:?}");
    let text = serde_json::to_string(&r).unwrap();
    assert!(text.contains("\"windows\"") && !text.contains("\"ir\": ["));
}

#[test]
fn an_unstable_cost_is_marked_with_its_estimates() {
    let mut r = fixture();
    let c = r.cost.iter_mut().find(|c| c.ok).unwrap();
    c.unstable = true;
    c.estimates = vec![41_000.0, 42_500.0];
    let variant = c.variant.clone();
    let md = render(&Subject::study(r, FIXTURE), Format::Md).unwrap();
    let validity = &md[md.find("### Validity").expect("a validity table")..];
    assert!(
        validity.contains(&format!("| cost | {variant} | 1/1 |"))
            && validity.contains("cost unstable (estimates 41000, 42500)"),
        "{validity}"
    );
}

#[test]
fn frames_that_grew_say_what_the_document_holds() {
    use psbench::report::findings::frames_that_grew::section;
    use psbench::results::document::CellProfile;
    let mut res = fixture();
    assert_eq!(section(&res), None, "no cell was profiled");
    res.cells[0].profile = Some(CellProfile {
        folded: "profiles/x.folded".into(),
        transactions: 10,
        samples: 5,
        seconds: 1.0,
        frequency: 499,
        unresolved_share: 0.0,
    });
    // A document from before the tables were kept: the report points to the files.
    let old = section(&res).unwrap();
    assert!(old.contains("profiles/summary.md"), "{old}");
    res.frames_that_grew = Some(Vec::new());
    let none = section(&res).unwrap();
    assert!(
        none.contains("No variant has a profile to compare"),
        "{none}"
    );
}

#[test]
fn a_study_s_own_pairs_get_their_columns_and_findings() {
    // The fixture compares default with its base ps_off; a pair the other way round adds a
    // column (and a ratio in every row) without touching the base's.
    let mut r = fixture();
    r.study.pairs = vec![["ps_off".to_string(), "default".to_string()]];
    let s = Subject::study(r, "x");
    assert_eq!(s.pairs.len(), 2);
    let md = render(&s, Format::Md).unwrap();
    assert!(md.contains("default / ps_off"), "{md}");
    assert!(md.contains("ps_off / default"), "{md}");
    // A pair naming a variant without results is left out, not drawn empty.
    let mut r = fixture();
    r.study.pairs = vec![["nope".to_string(), "default".to_string()]];
    assert_eq!(Subject::study(r, "x").pairs.len(), 1);
}

#[test]
fn a_report_of_a_study_still_running_says_so_first() {
    let mut s = subject();
    s.running = Some("running: round 2 of 3, about 3 min left (from the rounds so far)".into());
    let md = psbench::report::render::markdown::summary(&s);
    let first = md.lines().find(|l| !l.is_empty() && !l.starts_with('#'));
    assert_eq!(
        first,
        Some("**running: round 2 of 3, about 3 min left (from the rounds so far)**: the report so far, rewritten after each round."),
        "{md}"
    );
    let html = psbench::report::render::html::render(&s).unwrap();
    let running = html
        .find("<p class=\"running\">")
        .expect("html says it is running");
    assert!(running < html.find("id=\"glance\"").unwrap());
    let json: serde_json::Value =
        serde_json::from_str(&psbench::report::render::summary_json::render(&s).unwrap()).unwrap();
    assert_eq!(json["running"], s.running.clone().unwrap().as_str());
    // Finished, it says nothing of the kind.
    let done = subject();
    assert!(!psbench::report::render::markdown::summary(&done).contains("running:"));
    let json: serde_json::Value =
        serde_json::from_str(&psbench::report::render::summary_json::render(&done).unwrap())
            .unwrap();
    assert!(json.get("running").is_none());
}
