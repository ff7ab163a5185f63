//! The Findings that open every report: generated from the results, checked on the checked-in
//! study (tests/data/report-study) against figures worked out here from its rounds, and on
//! synthetic studies whose answer is known.

use psbench::report::findings::findings;
use psbench::report::{compare, render, Format, Subject};
use psbench::results::StudyResults;
use psbench::stats::rounds_to_resolve;
use std::path::Path;

fn fixture() -> StudyResults {
    StudyResults::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study"))
        .expect("the checked-in results document loads")
}

fn tps(r: &StudyResults, variant: &str, step: &str, threads: u32, round: u32) -> f64 {
    r.cells
        .iter()
        .find(|c| {
            c.key.variant == variant
                && c.key.step == step
                && c.key.threads == threads
                && c.key.round == round
        })
        .unwrap()
        .tps
}

/// The sample standard deviation of the per-round log ratios default/ps_off.
fn log_ratio_sd(r: &StudyResults, step: &str, threads: u32) -> f64 {
    let logs: Vec<f64> = (0..r.study.rounds)
        .map(|k| (tps(r, "default", step, threads, k) / tps(r, "ps_off", step, threads, k)).ln())
        .collect();
    let m = logs.iter().sum::<f64>() / logs.len() as f64;
    (logs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (logs.len() - 1) as f64).sqrt()
}

#[test]
fn the_fixture_states_its_cost_and_what_its_rounds_could_not_resolve() {
    let r = fixture();
    let s = Subject::study(r.clone(), "fixture");
    let parts = psbench::report::findings::sections(&s);
    let f = findings(&s);
    // One line for the one variant, its cost on each step said there and nowhere else.
    assert_eq!(parts.per_variant.len(), 1, "{f:#?}");
    let cost = |step: &str, v: &str| r.cost_for(v, step).unwrap().ir_per_txn;
    for step in ["point_select", "read_only"] {
        let (b, d) = (cost(step, "ps_off"), cost(step, "default"));
        let expected = format!(
            "{:+.1}% instructions per transaction ({step})",
            (d / b - 1.0) * 100.0
        );
        assert!(
            parts.per_variant[0].contains(&expected),
            "{expected}\nnot in {f:#?}"
        );
        assert_eq!(
            f.iter().filter(|l| l.contains(&expected)).count(),
            1,
            "{f:#?}"
        );
    }
    // Flagged rounds enter its figures: marked, and said once, last.
    assert!(parts.per_variant[0].contains('⚑'), "{f:#?}");
    assert_eq!(
        parts.caveats,
        ["⚑ Rounds with validity flags (or failed rounds) enter the figures so marked: see Validity."]
    );
    assert!(f.iter().all(|l| !l.contains("see Validity)")), "{f:#?}");
    // Its three rounds of 3 s are far too noisy to call anything; the finding says how many
    // rounds would do, from the spread of the per-round ratios worked out here.
    let sds = [
        log_ratio_sd(&r, "point_select", 1),
        log_ratio_sd(&r, "point_select", 2),
    ];
    let needed: Vec<usize> = sds
        .iter()
        .map(|s| rounds_to_resolve(*s, 0.05).unwrap())
        .collect();
    let (lo, hi) = (needed.iter().min().unwrap(), needed.iter().max().unwrap());
    let line = f
        .iter()
        .find(|l| {
            l.starts_with(
                "point_select: default against ps_off not resolved at 1 thread and 2 threads",
            )
        })
        .unwrap_or_else(|| panic!("{f:#?}"));
    assert!(
        line.contains(&format!(
            "about {lo}–{hi} rounds would resolve a 5% change; this study ran 3"
        )),
        "{line}"
    );
    assert!(
        f.iter()
            .all(|l| !l.contains("slower than") && !l.contains("faster than")),
        "{f:#?}"
    );
    // The findings open every format.
    let md = render(&Subject::study(r.clone(), "fixture"), Format::Md).unwrap();
    let at = md.find("### Findings").unwrap();
    assert!(at < md.find("### Throughput").unwrap());
    assert!(md.contains(&format!("- {line}")));
    let html = render(&Subject::study(r, "fixture"), Format::Html).unwrap();
    assert!(html.find("id=\"findings\"").unwrap() < html.find("<h2>Results</h2>").unwrap());
}

/// The fixture with its throughput replaced: ps_off drifting down by a third over the rounds,
/// default at `factor` of ps_off within each round (±0.5%), and no flags; cost of
/// default set to `cost_factor` of ps_off's.
fn synthetic(factor: f64, cost_factor: f64) -> StudyResults {
    let mut r = fixture();
    for c in &mut r.cells {
        let level = 1000.0 * (1.0 - 0.15 * c.key.round as f64) * c.key.threads as f64;
        // Geometric mean exactly 1 over the three rounds.
        let wobble = [1.005, 1.0 / 1.005, 1.0][c.key.round as usize % 3];
        c.ok = true;
        c.flags.clear();
        c.tps = if c.key.variant == "default" {
            level * factor * wobble
        } else {
            level
        };
    }
    // Matched by round, not by position: the document's order must not matter.
    r.cells.reverse();
    let base: Vec<f64> = r
        .cost
        .iter()
        .filter(|c| c.variant == "ps_off")
        .map(|c| c.ir_per_txn)
        .collect();
    for (c, b) in r
        .cost
        .iter_mut()
        .filter(|c| c.variant == "default")
        .zip(base)
    {
        c.ir_per_txn = b * cost_factor;
        c.unstable = false;
    }
    r
}

#[test]
fn a_known_slowdown_under_drift_is_called_with_its_size() {
    let f = findings(&Subject::study(synthetic(0.85, 1.10), "synthetic"));
    for step in ["point_select", "read_only"] {
        for t in ["1 thread", "2 threads"] {
            let line = f
                .iter()
                .find(|l| {
                    l.starts_with(&format!("{step}: default is "))
                        && l.contains(&format!(" at {t}:"))
                })
                .unwrap_or_else(|| panic!("{step} {t}: {f:#?}"));
            // Within each round 0.85 × (1 ± 0.5%): the geometric mean of the ratios is 0.85.
            assert!(line.contains("is 15.0% slower than ps_off"), "{line}");
            assert!(line.ends_with("over 3 rounds."), "{line}");
        }
        assert!(
            f[0].contains(&format!("+10.0% instructions per transaction ({step})")),
            "{f:#?}"
        );
    }
    // Unpaired, the drift of a third between rounds hides the same 15%: two documents
    // compared (A = ps_off's rounds, B = default's) do not call it.
    let r = synthetic(0.85, 1.10);
    let mut b = r.clone();
    b.seed += 1;
    let s = compare::merge(r, "a", b, "b").unwrap();
    assert!(findings(&s).iter().all(|l| !l.contains("slower than")));
}

#[test]
fn no_change_is_resolved_as_within_the_threshold_and_two_rounds_make_no_call() {
    let f = findings(&Subject::study(synthetic(1.0, 1.0), "synthetic"));
    // Resolved as no change: the variant's line says so; nothing stands out.
    assert_eq!(f.len(), 1, "{f:#?}");
    assert!(f[0].contains("; throughput within ±5% ("), "{f:#?}");
    assert!(!f[0].contains("not resolved"), "{f:#?}");
    assert!(
        f[0].starts_with(
            "default against ps_off: +0.0% instructions per transaction (point_select)"
        ),
        "{f:#?}"
    );
    let mut two = synthetic(0.85, 1.0);
    two.cells.retain(|c| c.key.round < 2);
    two.study.rounds = 2;
    let f = findings(&Subject::study(two, "two rounds"));
    assert!(
        f.iter().any(|l| l == "read_only: default against ps_off not resolved at 1 thread and 2 threads: fewer than 3 rounds."),
        "{f:#?}"
    );
    assert!(f.iter().all(|l| !l.contains("slower than")), "{f:#?}");
}

#[test]
fn the_cost_section_sorts_variants_by_cost_with_ratio_and_difference() {
    let mut r = fixture();
    // Two more variants, one cheaper than the base and one dearer than default.
    for (name, factor) in [("dear", 1.3), ("cheap", 0.9)] {
        let mut v = r.study.variants[1].clone();
        v.name = name.to_string();
        r.study.variants.push(v);
        let mut c = r.cost_for("ps_off", "point_select").unwrap().clone();
        c.variant = name.to_string();
        c.ir_per_txn *= factor;
        r.cost.push(c);
    }
    let s = Subject::study(r.clone(), "fixture");
    let md = render(&s, Format::Md).unwrap();
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| point_select | ") && l.contains(" | transaction | "))
        .collect();
    let order: Vec<&str> = rows
        .iter()
        .map(|l| l.split(" | ").nth(1).unwrap())
        .collect();
    assert_eq!(order, ["cheap", "ps_off", "default", "dear"], "{md}");
    let base = r.cost_for("ps_off", "point_select").unwrap().ir_per_txn;
    assert!(
        rows[0].ends_with(&format!("| 0.900 | {:+.0} |", base * 0.9 - base)),
        "{}",
        rows[0]
    );
    assert!(rows[1].ends_with("| base |  |"), "{}", rows[1]);
    let f = findings(&s);
    assert!(
        f.contains(&"point_select: 2 of 3 variants cost more instructions per transaction than ps_off, from +9.2% (default) to +30.0% (dear).".to_string()),
        "{f:#?}"
    );
    // Each variant's own figure is in its line (and the table at a glance), once.
    for (v, figure) in [("dear", "+30.0%"), ("cheap", "-10.0%")] {
        let line = f
            .iter()
            .find(|l| l.starts_with(&format!("{v} against ps_off: ")))
            .unwrap_or_else(|| panic!("{v}: {f:#?}"));
        assert!(
            line.contains(&format!(
                "{figure} instructions per transaction (point_select)"
            )),
            "{line}"
        );
    }
    assert!(md.contains("| dear / ps_off | 1.300 ▲ |"), "{md}");
    assert!(md.contains("| cheap / ps_off | 0.900 ▼ |"), "{md}");
}

#[test]
fn variants_that_say_what_they_mean_are_answered_in_those_words_first() {
    let mut r = fixture();
    for v in &mut r.study.variants {
        v.means = Some(match v.name.as_str() {
            "ps_off" => "performance_schema off".into(),
            _ => "performance_schema on".into(),
        });
    }
    let f = findings(&Subject::study(r.clone(), "fixture"));
    // The counts' ratios on both steps, worked out here, summed up as one range per unit.
    let q = |step: &str| {
        r.cost_for("default", step).unwrap().ir_per_txn
            / r.cost_for("ps_off", step).unwrap().ir_per_txn
    };
    let (a, b) = (q("point_select"), q("read_only"));
    let pct = |x: f64| format!("{:+.1}%", (x - 1.0) * 100.0);
    let expected = format!(
        "performance_schema on (default) against performance_schema off (ps_off): instructions {} to {} per transaction (point_select, read_only); ",
        pct(a.min(b)),
        pct(a.max(b))
    );
    assert!(
        f[0].starts_with(&expected),
        "{expected}\nnot at the start of {f:#?}"
    );
    assert!(f[0].contains("; throughput not resolved here"), "{}", f[0]);
    // Without `means` on both sides, the plain line.
    r.study.variants[0].means = None;
    let f = findings(&Subject::study(r, "fixture"));
    assert!(f[0].starts_with("default against ps_off: "), "{f:#?}");
}

#[test]
fn compared_documents_count_costs_against_each_variants_own_base() {
    // Two runs of a study of three variants whose counts repeat: nothing costs more.
    let mut a = fixture();
    let mut v = a.study.variants[1].clone();
    v.name = "dear".into();
    a.study.variants.push(v);
    let mut c = a.cost_for("default", "point_select").unwrap().clone();
    c.variant = "dear".into();
    c.ir_per_txn *= 1.3;
    a.cost.push(c);
    let mut b = a.clone();
    b.seed += 1;
    let s = compare::merge(a.clone(), "a", b, "b").unwrap();
    let f = findings(&s);
    assert!(
        f.contains(&"point_select: 3 variants compared each with its own base; none costs more instructions per transaction (beyond 0.2%).".to_string()),
        "{f:#?}"
    );
    assert!(!f.iter().any(|l| l.contains("than A:ps_off,")), "{f:#?}");
    // B's dear costs 10% more than A's dear.
    let mut b = a.clone();
    b.seed += 1;
    b.cost.last_mut().unwrap().ir_per_txn *= 1.1;
    let f = findings(&compare::merge(a, "a", b, "b").unwrap());
    assert!(
        f.contains(&"point_select: 3 variants compared each with its own base; 1 cost more instructions per transaction, B:dear by +10.0%.".to_string()),
        "{f:#?}"
    );
}
