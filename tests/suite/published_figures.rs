//! The published studies' figures the built-in studies carry: as many per study as it printed
//! (none can drop silently), each listed by `psbench studies --published`; and a mistaken
//! `[[published]]` entry is a study-file error naming its key.

use std::process::Command;

fn psbench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_psbench"))
        .args(args)
        .output()
        .unwrap()
}

/// What each published study printed, counted by hand from its text: "What is the cost of the
/// performance schema in MySQL 5.7 and 8.0" 14 (six 5.7.44 step ratios, its 5.7 and 8.0
/// summaries, six on the 8.0.35 builds); "Performance Schema Benchmarks: OLTP RW" two rankings (waits
/// and every instrument costliest; every instrument against none), "little effect" of four and two
/// thresholds; "Performance Schema overhead" 72 ratios per thread count and six summaries;
/// "MySQL 5.6: single-threaded, read-only" nine QPS, three summary figures, and its
/// CRC32 and table-statistics remarks; "MySQL 8, MySQL 5.7 and
/// Percona Server" 9.
const PRINTED: [(&str, usize); 5] = [
    (
        "What is the cost of the performance schema in MySQL 5.7 and 8.0",
        14,
    ),
    ("Performance Schema Benchmarks: OLTP RW", 5),
    ("Performance Schema overhead", 78),
    ("MySQL 5.6: single-threaded, read-only", 14),
    ("MySQL 8, MySQL 5.7 and Percona Server", 9),
];

#[test]
fn every_figure_each_published_study_printed_is_carried_and_listed() {
    let o = psbench(&["studies", "--published"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    for (title, n) in PRINTED {
        let head = out
            .lines()
            .find(|l| l.starts_with(&format!("\"{title}")))
            .unwrap_or_else(|| panic!("no line of {title}:\n{out}"));
        assert!(head.ends_with(&format!(": {n} figures")), "{head}");
        // Its figures follow it, one line each, until the next study's line.
        let listed = out
            .lines()
            .skip_while(|l| *l != head)
            .skip(1)
            .take_while(|l| l.starts_with("  ["))
            .count();
        assert_eq!(listed, n, "{title}:\n{out}");
    }
    let total: usize = PRINTED.iter().map(|(_, n)| n).sum();
    assert!(
        out.contains(&format!("\n{total} published figures in all.")),
        "{out}"
    );
    // Each names the built-in study that checks it, or why it is not measured.
    for l in out.lines().filter(|l| l.starts_with("  [")) {
        assert!(
            l.contains(" / ") || l.contains("not measured here: ") || l.contains("each against "),
            "{l}"
        );
        // A ranking's line says what its variants are compared with, never an empty list.
        assert!(!l.contains(";  / "), "{l}");
    }
    assert!(
        out.contains("costlier than all_disabled; each against all_disabled on read_write"),
        "{out}"
    );
    assert!(out.contains("[mysql-pfs-oltp-rw]"), "{out}");
    // Printed without / with, converted once: "PS on" read-only at 32 threads, 1.25 → 0.800.
    assert!(
        out.lines().any(|l| l.contains(
            "[pfs-threads] PS on with every consumer, read-only, per thread count: 0.800;"
        ) && l.contains("at 32 threads")),
        "{out}"
    );
}

#[test]
fn a_mistaken_published_entry_is_a_study_file_error_naming_its_key() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("s.toml");
    let study = r#"name = "mistaken"
threads = [1, 2]
[[variant]]
name = "ps_off"
scenario = "ps_off"
[[variant]]
name = "default"
scenario = "default"
[[workload]]
workload = "oltp_point_select"
[[published]]
source = "pfs-overhead"
figure = "a variant, a step and a thread count this study does not have"
variants = ["all_enabled"]
steps = ["read_only"]
threads = [32]
ratio = 0.9
[[published]]
source = "no-such-study"
figure = "two figures at once"
variants = ["default"]
steps = ["point_select"]
ratio = 0.9
range = [0.8, 0.9]
"#;
    std::fs::write(&file, study).unwrap();
    let o = psbench(&["run", file.to_str().unwrap(), "--plan"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for m in [
        "`variants`: no variant 'all_enabled'",
        "`steps`: no step 'read_only' (it has: point_select)",
        "`threads`: the study does not run 32 threads (it runs 1, 2)",
        "`source`: no published study 'no-such-study'",
        "one figure an entry: it gives ratio, range",
    ] {
        assert!(err.contains(m), "{m}: {err}");
    }
    // A line each, every one a study-file error.
    assert!(
        err.lines().all(|l| l.starts_with("psbench: error: ")),
        "{err}"
    );
}
