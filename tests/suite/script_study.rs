//! The user's own workload in a study: two scripts in pgbench's language weighted 3:1 on a
//! dataset made from the user's SQL files, on MariaDB 10.11, MySQL 8.0.15 and PostgreSQL 15;
//! each script's share of the transactions, its own figures, and cost mode counting each
//! script apart; and a script's mistakes refused with file and line before anything starts.

use crate::common;

use common::{results, run_in as run, text};
use std::path::Path;

/// Rows of the test's table.
const ROWS: u32 = 1000;

/// schema.sql, data.sql.gz, read.sql, write.sql in `dir`: a table of ROWS counters.
fn write_files(dir: &Path) {
    std::fs::write(
        dir.join("schema.sql"),
        "-- the counters\nCREATE TABLE kv (id INT PRIMARY KEY, v INT NOT NULL);\n",
    )
    .unwrap();
    let values: Vec<String> = (1..=ROWS).map(|i| format!("({i}, 0)")).collect();
    let data = format!("INSERT INTO kv (id, v) VALUES {};\n", values.join(", "));
    // Compressed, as dumps often are.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, data.as_bytes()).unwrap();
    std::fs::write(dir.join("data.sql.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(
        dir.join("read.sql"),
        format!("\\set id random(1, {ROWS})\nSELECT v FROM kv WHERE id = :id;\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("write.sql"),
        "\\set id random(1, :rows)\nBEGIN;\nUPDATE kv SET v = v + 1 WHERE id = :id;\nCOMMIT;\n",
    )
    .unwrap();
}

/// A study of the two scripts on the server `variant` describes (TOML keys).
fn study(variant: &str, extra: &str) -> String {
    format!(
        r#"
name = "own"
threads = [2]
rounds = 1
duration = 3
warmup = 0.5
{extra}
[dataset]
sql = ["schema.sql", "data.sql.gz"]
[[variant]]
name = "base"
{variant}
[[workload]]
name = "mix"
workload = "script"
scripts = ["read.sql@3", "write.sql@1"]
vars = {{ rows = {ROWS} }}
query_mode = "prepared"
"#
    )
}

/// Each script's share within 2% of its weight, over at least 10,000 transactions.
fn check_shares(r: &serde_json::Value) {
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "{cells:?}");
    let c = &cells[0];
    assert_eq!(c["ok"], true, "{c}");
    let classes = c["classes"].as_array().unwrap();
    let names: Vec<&str> = classes
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mix read", "mix write"]);
    let n = |i: usize| classes[i]["transactions"].as_u64().unwrap();
    let total = n(0) + n(1);
    assert_eq!(total, c["transactions"].as_u64().unwrap());
    assert!(
        total >= 10_000,
        "only {total} transactions in the cell: {c}"
    );
    let share = n(0) as f64 / total as f64;
    assert!(
        (share - 0.75).abs() <= 0.02,
        "read's share {share:.4} of {total}"
    );
    for k in classes {
        for p in ["p50", "p95", "p99"] {
            assert!(k["latency_ms"][p].as_f64().unwrap() > 0.0, "{k}");
        }
    }
    assert_eq!(c["errors"], 0, "{c}");
    // The scripts as they ran, by content.
    let w = &r["study"]["workload"][0];
    assert_eq!(w["script_sha256"].as_array().unwrap().len(), 2, "{w}");
}

fn on(variant: &str) {
    let tmp = common::tempdir().unwrap();
    write_files(tmp.path());
    let o = run(tmp.path(), &study(variant, ""), &[]);
    assert!(o.status.success(), "{}", text(&o));
    let r = results(&tmp.path().join("out"));
    check_shares(&r);
    let md = std::fs::read_to_string(tmp.path().join("out/summary.md")).unwrap();
    assert!(md.contains("mix read") && md.contains("mix write"), "{md}");
}

#[test]
fn a_script_study_runs_on_mariadb() {
    on("");
}

#[test]
fn a_script_study_runs_on_mysql_8_0_15() {
    let Some(tree) = common::require::cached_release("mysql-8.0.15") else {
        return;
    };
    on(&format!("basedir = {:?}", tree.display().to_string()));
}

#[test]
fn a_script_study_runs_on_postgres() {
    on("engine = \"postgres\"");
}
