//! The Servers and per-round tables of the checked-in study (tests/data/report-study): what
//! every server shares said once, and each round's throughput and ratio, checked against the
//! document's own records.

use psbench::report::{
    compare, render, render::files, tables::provenance, tables::rounds, Format, Subject,
};
use psbench::results::StudyResults;
use std::collections::BTreeSet;
use std::path::Path;

fn fixture() -> StudyResults {
    StudyResults::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study"))
        .expect("the checked-in results document loads")
}

fn subject() -> Subject {
    Subject::study(fixture(), "fixture")
}

#[test]
fn the_servers_table_says_what_every_server_shares_once() {
    let r = fixture();
    let t = provenance::servers(&subject());
    let names: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
    // One build and no statements: version, binary and sql are not columns.
    assert_eq!(
        names,
        ["variant", "options", "performance_schema", "consumers on"]
    );
    let options = |v: &str| -> BTreeSet<String> {
        r.variants[v].options.iter().map(|o| o.display()).collect()
    };
    let shared: BTreeSet<String> = r
        .variants
        .keys()
        .map(|v| options(v))
        .reduce(|a, b| a.intersection(&b).cloned().collect())
        .unwrap();
    assert_eq!(shared.len(), 6, "{shared:?}");
    let common = t
        .legend
        .iter()
        .find(|l| l.starts_with("Every server: options "))
        .expect("the shared options under the table");
    for o in &shared {
        assert!(common.contains(o.as_str()), "{o} not in {common}");
    }
    assert!(t
        .legend
        .contains(&"Every server: version 10.11.19-MariaDB-0+deb12u1.".to_string()));
    assert!(t
        .legend
        .contains(&"Every server: binary /usr/sbin/mariadbd.".to_string()));
    // Each row: exactly the variant's options that not every server has.
    let md = render(&subject(), Format::Md).unwrap();
    let section = md.split("### Servers\n").nth(1).unwrap();
    assert_eq!(
        section.matches("max_connections=100").count(),
        1,
        "{section}"
    );
    for row in &t.rows {
        let v = row[0].text();
        let own: BTreeSet<String> = row[1].text().split(' ').map(str::to_string).collect();
        let want: BTreeSet<String> = options(&v).difference(&shared).cloned().collect();
        assert_eq!(own, want, "{v}");
    }
    // One server alone has nothing to share: every column stays.
    let mut one = fixture();
    one.variants.retain(|k, _| k == "ps_off");
    let t = provenance::servers(&Subject::study(one, "x"));
    assert!(t.legend.is_empty(), "{:?}", t.legend);
    assert!(t.columns.iter().any(|c| c.name == "version"));
    assert!(t.rows[0][3].text().contains("max_connections=100"));
}

#[test]
fn each_round_shows_both_throughputs_and_their_ratio() {
    let r = fixture();
    let t = rounds::per_round(&subject());
    let names: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "step",
            "threads",
            "round",
            "ps_off",
            "default",
            "default / ps_off"
        ]
    );
    let csv = files::csv_tables(&subject())
        .into_iter()
        .find(|(n, _)| n == "rounds.csv")
        .expect("csv/rounds.csv")
        .1;
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(
        rows.len(),
        r.cells.len() / 2,
        "a row per (step, threads, round)"
    );
    let tps = |v: &str, step: &str, t: u32, round: u32| {
        r.cells
            .iter()
            .find(|c| {
                c.key.variant == v
                    && c.key.step == step
                    && c.key.threads == t
                    && c.key.round == round
            })
            .unwrap()
            .tps
    };
    let mut logs: Vec<f64> = Vec::new();
    for f in &rows {
        let (step, t, round) = (f[0], f[1].parse().unwrap(), f[2].parse::<u32>().unwrap());
        // Counted from 1 for the reader; the document counts from 0.
        let (base, new) = (
            tps("ps_off", step, t, round - 1),
            tps("default", step, t, round - 1),
        );
        assert_eq!(f[3].parse::<f64>().unwrap(), base);
        assert_eq!(f[4].parse::<f64>().unwrap(), new);
        assert_eq!(f[5].parse::<f64>().unwrap(), new / base);
        if (step, t) == ("point_select", 1) {
            logs.push((new / base).ln());
        }
    }
    // The relative table's ratio is the geometric mean of exactly these.
    let relative = files::csv_tables(&subject())
        .into_iter()
        .find(|(n, _)| n == "relative.csv")
        .unwrap()
        .1;
    let first: f64 = relative
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    assert_eq!(logs.len(), 3);
    assert!(
        (mean.exp() - first).abs() < 1e-12,
        "{} vs {first}",
        mean.exp()
    );
    // In the HTML page it is folded away under its heading, which the navigation reaches.
    let h = render(&subject(), Format::Html).unwrap();
    let at = h.find("<h3 id=\"rounds\">").expect("its heading");
    let after = &h[at..];
    assert!(
        after
            .find("<details><summary>Show the 12 rows</summary>")
            .unwrap()
            < after.find("<table class=\"rounds\">").unwrap()
    );
    assert!(h.contains("<a href=\"#rounds\">"));
    // In Markdown, among the details.
    let md = render(&subject(), Format::Md).unwrap();
    assert!(
        md.contains("| point_select | 1 | 1 | 30333 ⚑ | 24960 ⚑ | 0.823 ⚑ |"),
        "{md}"
    );
}

#[test]
fn two_documents_compared_get_no_ratio_per_round() {
    let mut b = fixture();
    b.seed += 1;
    let s = compare::merge(fixture(), "a", b, "b").unwrap();
    let t = rounds::per_round(&s);
    assert!(t.columns.iter().all(|c| !c.name.contains(" / ")));
    assert!(t.note.contains("share no rounds"), "{}", t.note);
}
