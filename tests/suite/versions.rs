//! Versions as variants: the system's MariaDB 10.11 against 11.4.5 fetched from Maven Central
//! (cached between test runs in the psbench cache directory).

use crate::common;

use common::require::cached_release;
use common::results;
use std::path::Path;
use std::process::Command;

#[test]
fn tiny_versions_study_end_to_end() {
    let Some(basedir) = cached_release("mariadb-11.4.5") else {
        return;
    };
    assert!(Path::new(&basedir).join("bin/mariadbd").is_file());
    let tmp = common::tempdir().unwrap();
    let study = tmp.path().join("v.toml");
    std::fs::write(
        &study,
        r#"
name = "versions-tiny"
base = "10.11"
mode = "both"
cost_workloads = ["point_select"]
threads = [1]
rounds = 1
duration = 1
warmup = 0.3
[dataset]
table_size = 1000
[cost]
events = [300, 600, 900]
warmup_events = 50
[[variant]]
name = "10.11"
scenario = "default"
[[variant]]
name = "11.4"
scenario = "default"
version = "mariadb-11.4.5"
[[workload]]
workload = "oltp_point_select"
[[workload]]
workload = "insert-benchmark"
steps = ["l.i0", "l.x", "l.i1", "qr100", "qp100"]
options = { rows = 5000, rows_i1 = 1000, query_seconds = 1, cleanup_seconds = 0 }
"#,
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_psbench"))
        .env("PSBENCH_HOME", tmp.path().join("home"))
        .arg("run")
        .arg(&study)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{text}");
    let r = results(&out);
    let v = &r["variants"];
    assert!(
        v["10.11"]["server_version"]
            .as_str()
            .unwrap()
            .starts_with("10.11"),
        "{v}"
    );
    assert!(
        v["11.4"]["server_version"]
            .as_str()
            .unwrap()
            .starts_with("11.4.5"),
        "{v}"
    );
    assert_ne!(v["10.11"]["server_sha256"], v["11.4"]["server_sha256"]);
    // The release's fetch and check are remembered: it is listed as running here.
    let list = Command::new(env!("CARGO_BIN_EXE_psbench"))
        .args(["fetch", "--list", "mariadb"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&list.stdout).to_string();
    let line = listed
        .lines()
        .find(|l| l.trim_start().starts_with("mariadb-11.4.5 "))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(line.ends_with("cached      runs here: yes"), "{line}");
    assert_eq!(v["11.4"]["server_sha256"].as_str().unwrap().len(), 64);
    // Each version ran on a datadir its own version prepared, with PFS verified.
    assert_eq!(v["11.4"]["pfs"]["enabled"], true);
    let cost = r["cost"].as_array().unwrap();
    assert_eq!(cost.len(), 2);
    assert!(cost
        .iter()
        .all(|c| c["ok"] == true && c["ir_per_txn"].as_f64().unwrap() > 10_000.0));
    assert!(r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("code layout")));
    // The Insert Benchmark's cleanup says what it could not do, as `bench insert-benchmark`
    // prints it: MariaDB 10.11 has no innodb_idle_flush_pct.
    assert!(
        r["notes"].as_array().unwrap().iter().any(|n| {
            let n = n.as_str().unwrap();
            n.contains("variant 10.11: Insert Benchmark cleanup: innodb_idle_flush_pct")
        }),
        "{}",
        r["notes"]
    );
    assert!(text.contains("| point_select | 1 |"), "{text}");
    // The Insert Benchmark's steps are cells of both versions, with their own figures.
    let cells = r["cells"].as_array().unwrap();
    for variant in ["10.11", "11.4"] {
        for step in ["l.i0", "l.x", "l.i1", "qr100", "qp100"] {
            let c = cells
                .iter()
                .find(|c| c["variant"] == variant && c["step"] == step)
                .unwrap_or_else(|| panic!("no {variant} {step} cell: {text}"));
            assert_eq!(c["ok"], true, "{c}");
            let rows = if step == "l.i0" { 5_000 } else { 5_100 };
            assert_eq!(c["insert_benchmark"]["rows_after"], rows, "{c}");
            assert!(c["tps"].as_f64().unwrap() > 0.0);
        }
        let qr = cells
            .iter()
            .find(|c| c["variant"] == variant && c["step"] == "qr100")
            .unwrap();
        assert_eq!(
            qr["insert_benchmark"]["background"]["target_rows_per_s"],
            100.0
        );
    }
    assert!(
        text.contains("Insert Benchmark background insert rate"),
        "{text}"
    );
    assert!(text.contains("| qr100 | 1 |"), "{text}");
    // The throughput note names each step's unit and how long each kind of cell runs.
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("Transactions per second; indexed rows/s (l.x); inserts/s (l.i0, l.i1); queries/s (qr100, qp100): median")
            && md.contains("s per cell of transactions; Insert Benchmark load steps run to their row count, query steps for their query time"),
        "{md}"
    );
}
