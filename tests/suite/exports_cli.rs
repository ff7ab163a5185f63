//! Through the built binary, on the checked-in study (tests/data/report-study): the exports of
//! `report`, `compare` and `run`, `report --out`, summary.json, bench.txt's unit lines, an
//! incomplete study's report, and `compare` of one document with itself.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn psbench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psbench"))
}

fn fixture_json() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study/results.json")
}

fn fixture() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture_json()).unwrap()).unwrap()
}

/// A results directory holding `doc` as its results.json.
fn results_dir(tmp: &Path, name: &str, doc: &Value) -> PathBuf {
    let d = tmp.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("results.json"), serde_json::to_string(doc).unwrap()).unwrap();
    d
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every file under `dir` (relative path) with a checksum of its bytes.
fn checksums(dir: &Path) -> Vec<(String, u64)> {
    use std::hash::{Hash, Hasher};
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                std::fs::read(&p).unwrap().hash(&mut h);
                let name = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((name, h.finish()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn report_exports_the_results_the_relative_table_and_the_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = results_dir(tmp.path(), "study", &fixture());
    let (json, csv, md) = (
        tmp.path().join("r.json"),
        tmp.path().join("r.csv"),
        tmp.path().join("r.md"),
    );
    let o = psbench()
        .arg("report")
        .arg(&dir)
        .arg("--export-json")
        .arg(&json)
        .arg("--export-csv")
        .arg(&csv)
        .arg("--export-markdown")
        .arg(&md)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    // The results document as it is.
    assert!(
        read(&json) == read(&dir.join("results.json")),
        "--export-json differs"
    );
    assert_eq!(read(&csv), read(&dir.join("csv/relative.csv")));
    assert!(read(&csv).starts_with("step,threads,"), "{}", read(&csv));
    assert_eq!(read(&md), read(&dir.join("summary.md")));
}

#[test]
fn an_export_path_that_cannot_be_written_is_one_line_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = fixture();
    let a = results_dir(tmp.path(), "a", &doc);
    let mut other = doc.clone();
    other["seed"] = Value::from(1);
    let b = results_dir(tmp.path(), "b", &other);
    let bad = tmp.path().join("no-such-dir/out.csv");
    let line = format!(
        "psbench: error: --export-csv: cannot write {}: not a file in an existing directory\n",
        bad.display()
    );
    for mut args in [
        vec!["report".to_string(), a.display().to_string()],
        vec![
            "compare".to_string(),
            a.display().to_string(),
            b.display().to_string(),
        ],
        // Checked before anything runs.
        vec![
            "run".to_string(),
            "--out".into(),
            tmp.path().join("run").display().to_string(),
        ],
    ] {
        args.extend(["--export-csv".to_string(), bad.display().to_string()]);
        let o = psbench().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        assert_eq!(stderr(&o), line, "{args:?}");
    }
    assert!(!tmp.path().join("run").exists());
}

#[test]
fn report_out_writes_elsewhere_and_leaves_the_results_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = results_dir(tmp.path(), "study", &fixture());
    let before = checksums(&dir);
    let out = tmp.path().join("elsewhere");
    let o = psbench()
        .arg("report")
        .arg(&dir)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(checksums(&dir), before);
    let written: Vec<String> = checksums(&out).into_iter().map(|(n, _)| n).collect();
    for f in [
        "summary.md",
        "summary.json",
        "report.html",
        "bench.txt",
        "csv/relative.csv",
    ] {
        assert!(written.contains(&f.to_string()), "{f} not in {written:?}");
    }
}

#[test]
fn summary_json_answers_per_variant_step_and_threads_in_the_reports_words() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = results_dir(tmp.path(), "study", &fixture());
    let o = psbench().arg("report").arg(&dir).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let text = read(&dir.join("summary.json"));
    assert!(text.len() < 64 * 1024, "{} bytes", text.len());
    let s: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(s["study"], "report-fixture");
    assert_eq!(s["base"], "ps_off");
    assert_eq!(s["psbench_version"], "0.1.0");
    assert_eq!(s["complete"], true);
    let v = &s["variants"][0];
    assert_eq!(
        (&v["variant"], &v["base"]),
        (&"default".into(), &"ps_off".into())
    );
    let step = &v["steps"][0];
    assert_eq!(step["step"], "point_select");
    // Cost: default 45538.685 against ps_off's 41696.5167 instructions per transaction.
    let cost = &step["cost"];
    assert_eq!(cost["per"], "transaction");
    assert_eq!(cost["instructions"], 45538.685);
    let ratio = cost["ratio"].as_f64().unwrap();
    assert!(
        (ratio - 45538.685 / 41_696.516_666_666_67).abs() < 1e-9,
        "{ratio}"
    );
    assert_eq!(cost["verdict"], "costs more");
    // One thread: three noisy rounds resolve neither throughput nor CPU; every round of
    // default was contaminated.
    let one = &step["threads"][0];
    assert_eq!(one["threads"], 1);
    let tp = &one["throughput"];
    assert_eq!(tp["verdict"], "not resolved");
    assert_eq!(tp["rounds"], 3);
    let (r, lo, hi) = (
        tp["ratio"].as_f64().unwrap(),
        tp["low"].as_f64().unwrap(),
        tp["high"].as_f64().unwrap(),
    );
    assert!((r - 0.6146).abs() < 5e-4 && lo < r && r < hi, "{tp}");
    assert!(
        (lo - 0.3147).abs() < 5e-4 && (hi - 1.2004).abs() < 5e-4,
        "{tp}"
    );
    assert_eq!(one["server_cpu"]["verdict"], "not resolved");
    assert_eq!(one["flags"], serde_json::json!(["contaminated"]));
}

#[test]
fn bench_txt_declares_its_units_for_benchstat() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = results_dir(tmp.path(), "study", &fixture());
    let o = psbench().arg("report").arg(&dir).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let bench = read(&dir.join("bench.txt"));
    for line in [
        "Unit tps better=higher",
        "Unit p99-ms better=lower",
        "Unit server-cpu-us/op better=lower",
        "Unit client-cpu-us/op better=lower",
        "Unit instructions/op assume=exact better=lower",
    ] {
        assert!(bench.lines().any(|l| l == line), "{line} not in\n{bench}");
    }
    // Before the first result line, as benchfmt reads them.
    let first_unit = bench.find("Unit ").unwrap();
    assert!(first_unit < bench.find("Benchmark").unwrap());
}

#[test]
fn an_incomplete_study_says_so_first_and_how_to_finish_it() {
    let tmp = tempfile::tempdir().unwrap();
    // Stopped during its last round: round 3's cells missing, no finishing time.
    let mut doc = fixture();
    doc["cells"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c["round"] != 2);
    doc["finished_unix"] = Value::Null;
    let dir = results_dir(tmp.path(), "half", &doc);
    let o = psbench().arg("report").arg(&dir).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let first = stderr(&o).lines().next().unwrap_or_default().to_string();
    assert_eq!(
        first,
        format!(
            "psbench: study report-fixture is incomplete: 16 of 24 cells measured (cost mode: 4 of 4); finish it with: psbench run --resume {}",
            dir.display()
        )
    );
    let s: Value = serde_json::from_str(&read(&dir.join("summary.json"))).unwrap();
    assert_eq!(s["complete"], false);
    // Stopped before any throughput cell: the throughput table says what it counts.
    doc["cells"] = Value::Array(Vec::new());
    let dir = results_dir(tmp.path(), "cost-only", &doc);
    let o = psbench().arg("report").arg(&dir).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(!printed.lines().any(|l| l.starts_with(':')), "{printed}");
    assert!(stderr(&o).starts_with(
        "psbench: study report-fixture is incomplete: 0 of 24 cells measured (cost mode: 4 of 4);"
    ));
    // A finished study says nothing of the kind.
    let dir = results_dir(tmp.path(), "whole", &fixture());
    let o = psbench().arg("report").arg(&dir).output().unwrap();
    assert!(!stderr(&o).contains("incomplete"), "{}", stderr(&o));
}

#[test]
fn comparing_a_document_with_itself_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let a = results_dir(tmp.path(), "a", &fixture());
    let copy = results_dir(tmp.path(), "copy", &fixture());
    for b in [&a, &copy] {
        let o = psbench().arg("compare").arg(&a).arg(b).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        assert_eq!(
            stderr(&o),
            format!(
                "psbench: error: {} and {} are the same results (identical documents: nothing to compare)\n",
                a.display(),
                b.display()
            )
        );
    }
}

const TINY: &str = r#"
name = "tiny-export"
description = "one variant, one cell"
mode = "throughput"
threads = [1]
rounds = 1
duration = 0.5
warmup = 0.1
[dataset]
table_size = 100
[[variant]]
name = "ps_off"
scenario = "ps_off"
[[workload]]
workload = "oltp_point_select"
"#;

/// Against the system's MariaDB, as tests/suite/study.rs runs studies.
#[test]
fn run_writes_its_study_beside_the_results_and_that_file_runs_it_again() {
    let tmp = tempfile::tempdir().unwrap();
    let study = tmp.path().join("s.toml");
    std::fs::write(&study, TINY).unwrap();
    let run = |study: &Path, out: &Path, json: &Path| {
        let o = psbench()
            .env("PSBENCH_HOME", tmp.path().join("home"))
            .arg("run")
            .arg(study)
            .args(["--rounds", "1", "--out"])
            .arg(out)
            .arg("--export-json")
            .arg(json)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    };
    let (out, json) = (tmp.path().join("out"), tmp.path().join("e.json"));
    run(&study, &out, &json);
    assert!(
        read(&json) == read(&out.join("results.json")),
        "--export-json differs"
    );
    let written = out.join("study.toml");
    let first: Value = serde_json::from_str(&read(&json)).unwrap();
    let (again, json2) = (tmp.path().join("again"), tmp.path().join("e2.json"));
    run(&written, &again, &json2);
    let second: Value = serde_json::from_str(&read(&json2)).unwrap();
    assert_eq!(first["study"], second["study"]);
    assert_eq!(read(&again.join("study.toml")), read(&written));
}
