//! `psbench report` and `psbench compare` through the command line, on the checked-in study.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn psbench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psbench"))
}

fn fixture_json() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study/results.json")
}

/// A results directory holding only a copy of the fixture's results.json.
fn results_dir(tmp: &Path, name: &str) -> PathBuf {
    let d = tmp.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(fixture_json(), d.join("results.json")).unwrap();
    d
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = walk(dir)
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .collect();
    v.sort();
    v
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

const REPORT_FILES: [&str; 21] = [
    "bench.txt",
    "csv/cost.csv",
    "csv/glance.csv",
    "csv/latency.csv",
    "csv/provenance.csv",
    "csv/ratio_by_threads.csv",
    "csv/regime-io.csv",
    "csv/relative.csv",
    "csv/relative_client_cpu.csv",
    "csv/relative_server_cpu.csv",
    "csv/resources.csv",
    "csv/rounds.csv",
    "csv/servers.csv",
    "csv/status.csv",
    "csv/throughput.csv",
    "csv/validity.csv",
    "csv/variables.csv",
    "report.html",
    "results.json",
    "summary.json",
    "summary.md",
];

#[test]
fn report_prints_markdown_and_writes_every_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = results_dir(tmp.path(), "study");
    let o = psbench().arg("report").arg(&dir).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(files(&dir), REPORT_FILES);
    // The terminal gets the headline tables and validity; summary.md has every table.
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    let printed = stdout(&o);
    for t in [
        "### Throughput\n",
        "### Throughput relative to the base",
        "### Cost mode",
        "### Validity",
    ] {
        assert!(printed.contains(t) && md.contains(t), "{t}");
    }
    for t in [
        "### Latency",
        "### Resources per transaction",
        "### Throughput per round",
        "### Servers",
    ] {
        assert!(!printed.contains(t) && md.contains(t), "{t}");
    }
    assert!(printed.contains("| point_select | 2 |"));
    // A results.json path works as well as its directory.
    let o = psbench()
        .arg("report")
        .arg(dir.join("results.json"))
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(stdout(&o), printed);
}

#[test]
fn report_with_a_format_prints_only_that_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = results_dir(tmp.path(), "study");
    for (format, starts) in [
        ("gobench", "goos: linux\n"),
        ("html", "<!DOCTYPE html>"),
        (
            "csv",
            "# glance.csv\nvariant / base,instructions (2 steps),instructions (2 steps) low,",
        ),
        ("md", "## report-fixture"),
    ] {
        let o = psbench()
            .args(["report", "--format", format])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{format}: {o:?}");
        assert!(stdout(&o).starts_with(starts), "{format}: {}", stdout(&o));
    }
    assert_eq!(files(&dir), ["results.json"]);
}

#[test]
fn compare_names_the_sides_and_writes_into_out() {
    let tmp = tempfile::tempdir().unwrap();
    let a = results_dir(tmp.path(), "before");
    let b = results_dir(tmp.path(), "after");
    // Another run of the same study (the same document twice is refused).
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("results.json")).unwrap()).unwrap();
    doc["seed"] = serde_json::Value::from(1);
    std::fs::write(b.join("results.json"), doc.to_string()).unwrap();
    let out = tmp.path().join("cmp");
    let o = psbench()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let md = stdout(&o);
    assert!(md.contains("B:ps_off / A:ps_off"), "{md}");
    assert!(md.contains("| point_select | 1 | A:ps_off |"), "{md}");
    let written = files(&out);
    assert!(
        written.contains(&"report.html".to_string()) && written.contains(&"bench.txt".to_string())
    );
    let bench = std::fs::read_to_string(out.join("bench.txt")).unwrap();
    assert!(bench.contains("/variant=B:default "), "{bench}");
}

#[test]
fn files_that_are_not_psbench_results_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let a = results_dir(tmp.path(), "a");
    let not_ours = tmp.path().join("other.json");
    std::fs::write(&not_ours, r#"{"format": "something-else"}"#).unwrap();
    for args in [
        vec![
            "compare".into(),
            a.display().to_string(),
            not_ours.display().to_string(),
        ],
        vec!["report".into(), not_ours.display().to_string()],
        vec![
            "compare".into(),
            a.display().to_string(),
            tmp.path().join("missing").display().to_string(),
        ],
    ] {
        let o = psbench().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("psbench: error:"));
    }
}

#[test]
fn a_failed_gate_says_its_verdict_once() {
    // The fixture's default costs 9.2% more instructions per point select than ps_off: beyond
    // 1%, within 10%.
    let tmp = crate::common::tempdir().unwrap();
    let dir = results_dir(tmp.path(), "gate");
    let check = |threshold: &str| {
        psbench()
            .arg("check")
            .arg(&dir)
            .args(["--threshold", threshold])
            .output()
            .unwrap()
    };
    let o = check("1");
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let out = stdout(&o);
    assert!(
        out.contains(": 2 regression(s), 0 improvement(s), 0 not checked"),
        "{out}"
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "",
        "the verdict on stderr again"
    );
    let o = check("10");
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(stdout(&o).contains(": 0 regression(s)"), "{}", stdout(&o));
}
