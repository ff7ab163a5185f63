//! A real sweep over two cached releases: one variant template expanded per release in
//! release order, counted in cost mode, the report's sweep table, chart and Findings, and
//! the results history holding both points of its series in release order.

use crate::common;

use common::require::cached_release;
use common::{psbench, results, text};

#[test]
fn a_sweep_over_two_releases_is_counted_reported_and_kept_in_the_history() {
    if cached_release("mysql-5.7.22").is_none() || cached_release("mysql-8.0.15").is_none() {
        return;
    }
    let tmp = common::tempdir().unwrap();
    let study = tmp.path().join("sweep.toml");
    // Listed newest first: the sweep runs them in release order.
    std::fs::write(
        &study,
        r#"
name = "sweep-tiny"
mode = "cost"
[dataset]
table_size = 1000
[cost]
events = [100, 200, 300]
warmup_events = 50
[[variant]]
name = "my"
scenario = "ps_off"
versions = ["mysql-8.0.15", "mysql-5.7.22"]
[[workload]]
workload = "oltp_point_select"
"#,
    )
    .unwrap();
    let home = tmp.path().join("home");
    let out = tmp.path().join("out");
    let o = psbench(&home)
        .arg("run")
        .arg(&study)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let r = results(&out);
    let names: Vec<&str> = r["study"]["variant"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["my-5.7.22", "my-8.0.15"], "{t}");
    assert_eq!(r["study"]["variant"][1]["sweep"], "my");
    assert!(r["variants"]["my-8.0.15 [cost]"]["server_version"]
        .as_str()
        .unwrap()
        .starts_with("8.0.15"));
    let ir = |v: &str| {
        r["cost"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["variant"] == v)
            .unwrap()["ir_per_txn"]
            .as_f64()
            .unwrap()
    };
    let step = ir("my-8.0.15") / ir("my-5.7.22") - 1.0;
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("Release sweep: instructions per release"),
        "{summary}"
    );
    // The Finding is there exactly when the counts moved by 1% or more.
    let finding = format!(
        "my point_select: {:+.1}% instructions per transaction between my-5.7.22 and my-8.0.15",
        step * 100.0
    );
    assert_eq!(
        summary.contains(&finding),
        step.abs() >= 0.01,
        "{finding}\n{summary}"
    );
    // Both jars hold MySQL's own release binaries: one channel, whichever artifact.
    assert!(!summary.contains("channels ("), "{summary}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(html.matches("data-kind=\"sweep\"").count(), 1);

    // Both releases are points of one series, in release order.
    assert!(t.contains("history: 2 points added to "), "{t}");
    let list = psbench(&home).arg("history").output().unwrap();
    let listed = String::from_utf8_lossy(&list.stdout).to_string();
    let line = listed
        .lines()
        .find(|l| {
            l.contains("mysql point_select (cost mode), instructions per transaction: 2 points")
        })
        .unwrap_or_else(|| panic!("{listed}"));
    let id = line.split_whitespace().next().unwrap();
    let shown = psbench(&home).args(["history", id]).output().unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout).to_string();
    let (a, b) = (
        shown.find("  5.7.22").unwrap(),
        shown.find("  8.0.15").unwrap(),
    );
    assert!(a < b, "{shown}");
}
