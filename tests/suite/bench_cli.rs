//! The `psbench bench` command line against a real sandbox of the system mariadbd, with the
//! sysbench workloads: statement counts, reports, the JSON document, the open-loop rate, the
//! Unix socket and bad input.

use crate::common;

use common::sandbox;
use mysql::prelude::Queryable;
use psbench::server::{Home, Sandbox, SandboxSpec};
use std::collections::BTreeMap;
use std::process::{Command, Output};

fn psbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psbench"))
        .args(args)
        .env_remove("PSBENCH_MYSQL_PASSWORD")
        .output()
        .expect("running psbench")
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// `--mysql-port P --mysql-user root` for a sandbox over TCP.
fn tcp(sb: &Sandbox) -> Vec<String> {
    vec![
        format!("--mysql-port={}", sb.port()),
        "--mysql-user=root".to_string(),
        format!(
            "--mysql-password-file={}",
            sb.state().client_defaults().display()
        ),
    ]
}

fn bench(workload: &str, command: &str, conn: &[String], extra: &[&str]) -> Output {
    let mut args = vec!["bench", workload, command];
    args.extend(conn.iter().map(String::as_str));
    args.extend_from_slice(extra);
    psbench(&args)
}

fn global_status(conn: &mut mysql::Conn) -> BTreeMap<String, u64> {
    conn.query::<(String, String), _>("SHOW GLOBAL STATUS")
        .unwrap()
        .into_iter()
        .filter_map(|(k, v)| v.parse().ok().map(|v| (k, v)))
        .collect()
}

/// The number after `label` in a sysbench report line such as `    transactions:   1000   (...)`.
fn report_count(report: &str, label: &str) -> u64 {
    let line = report
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{report}"));
    line.trim_start()[label.len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in `{line}`"))
}

#[test]
fn oltp_read_write_issues_sysbench_statement_mix_and_report() {
    let (_tmp, sb) = sandbox("mix");
    let conn = tcp(&sb);
    ok(&bench("oltp_read_write", "prepare", &conn, &[]));
    // One connection for both snapshots: connecting may itself run a SELECT.
    let mut status = sb.admin_endpoint().connect().unwrap();
    let before = global_status(&mut status);
    let out = ok(&bench(
        "oltp_read_write",
        "run",
        &conn,
        &["--events=1000", "--threads=1", "--time=0"],
    ));
    let after = global_status(&mut status);
    let delta = |k: &str| after[k] - before[k];
    for (counter, per_txn) in [
        ("Com_select", 14),
        ("Com_update", 2),
        ("Com_delete", 1),
        ("Com_insert", 1),
        ("Com_begin", 1),
        ("Com_commit", 1),
    ] {
        assert_eq!(delta(counter), 1000 * per_txn, "{counter}\n{out}");
    }
    // The report reads as sysbench's does.
    assert_eq!(report_count(&out, "transactions:"), 1000, "{out}");
    assert_eq!(report_count(&out, "queries:"), 20_000);
    assert_eq!(report_count(&out, "read:"), 14_000);
    assert_eq!(report_count(&out, "write:"), 4_000);
    assert_eq!(report_count(&out, "other:"), 2_000);
    assert_eq!(report_count(&out, "total number of events:"), 1000);
    assert!(out.contains("         95th percentile:"), "{out}");
    assert!(
        out.contains("    events (avg/stddev):           1000.0000/0.00"),
        "{out}"
    );
    assert!(out.contains("client CPU per query:"), "{out}");
}

#[test]
fn json_document_is_complete_and_never_holds_the_password() {
    let (tmp, sb) = sandbox("json");
    let password = "pw-7f3a-never-shown";
    let mut root = sb.admin_endpoint().connect().unwrap();
    root.query_drop(format!(
        "CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY '{password}'"
    ))
    .unwrap();
    root.query_drop("GRANT ALL ON *.* TO 'bench'@'127.0.0.1'")
        .unwrap();
    let conn = vec![
        format!("--mysql-port={}", sb.port()),
        "--mysql-user=bench".to_string(),
        format!("--mysql-password={password}"),
    ];
    // The password also comes from the environment, or from a file.
    let user = [
        format!("--mysql-port={}", sb.port()),
        "--mysql-user=bench".to_string(),
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_psbench"))
        .args(["bench", "oltp_point_select", "prepare", "--table-size=1000"])
        .args(&user)
        .env("PSBENCH_MYSQL_PASSWORD", password)
        .output()
        .unwrap();
    ok(&out);
    let file = tmp.path().join("my.cnf");
    std::fs::write(&file, format!("[client]\npassword={password}\n")).unwrap();
    let from_file = format!("--mysql-password-file={}", file.display());
    let wrong = bench("oltp_point_select", "run", &user, &["--time=1"]);
    assert_eq!(wrong.status.code(), Some(2), "no password must be refused");
    let mut with_file = user.to_vec();
    with_file.push(from_file);
    ok(&bench(
        "oltp_point_select",
        "run",
        &with_file,
        &["--table-size=1000", "--events=10", "--time=0"],
    ));
    let json = tmp.path().join("result.json");
    let out = bench(
        "oltp_point_select",
        "run",
        &conn,
        &[
            "--table-size=1000",
            "--threads=2",
            "--time=2",
            "--rand-seed=77",
            "--percentile=95,99.5",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    let stdout = ok(&out);
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(!text.contains(password) && !stdout.contains(password));
    assert!(!String::from_utf8_lossy(&out.stderr).contains(password));
    let d: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(d["format"], "psbench-bench");
    assert_eq!(d["version"], 1);
    assert_eq!(d["seed"], 77);
    assert_eq!(d["workload"], "oltp_point_select");
    assert!(d["server_version"].as_str().unwrap().contains("MariaDB"));
    assert_eq!(d["options"]["threads"], 2);
    assert_eq!(d["workload_options"]["table_size"], 1000);
    // The password left the command line before the run (moved to the environment).
    let cmd = d["command_line"].to_string();
    assert!(
        cmd.contains("oltp_point_select") && !cmd.contains("--mysql-password"),
        "{cmd}"
    );
    let txns = d["totals"]["transactions"].as_u64().unwrap();
    assert_eq!(txns, report_count(&stdout, "transactions:"));
    assert!(txns > 100, "{stdout}");
    assert!(
        d["totals"]["latency_ms"]["percentiles"]["99.5"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(d["client_cpu"]["user_s"].as_f64().unwrap() > 0.0);
    let intervals = d["intervals"].as_array().unwrap();
    assert!(intervals.len() >= 2, "{intervals:?}");
    let per_second: u64 = intervals
        .iter()
        .map(|i| i["transactions"].as_u64().unwrap())
        .sum();
    assert_eq!(per_second, txns);
    assert!(
        intervals[0]["latency_ms"]["percentiles"]["99.9"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    // results/ reads back what it wrote, typed, and says when a file is not a bench document.
    let typed = psbench::results::BenchDocument::load(&json).unwrap();
    assert_eq!((typed.seed, typed.totals.transactions), (77, txns));
    assert_eq!(typed.endpoint.port, sb.port());
    assert_eq!(typed.intervals.len(), intervals.len());
    let elsewhere = tmp.path().join("not-a-bench.json");
    std::fs::write(&elsewhere, r#"{"format": "psbench-study", "version": 1}"#).unwrap();
    let e = psbench::results::BenchDocument::load(&elsewhere).unwrap_err();
    assert!(psbench::error::is_usage(&e), "{e:#}");
    assert!(e.to_string().contains("psbench-bench"), "{e:#}");
}

/// `[ 2s ] thds: 1 tps: ... lat (ms,95%): 123.45 ...` → (2, 123.45)
fn interval_percentile(line: &str) -> Option<(u64, f64)> {
    let t = line.strip_prefix("[ ")?.split('s').next()?.parse().ok()?;
    let lat = line
        .split("%): ")
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some((t, lat))
}

#[test]
fn rate_above_capacity_shows_latency_growing_with_the_backlog() {
    let (tmp, sb) = sandbox("over");
    let conn = tcp(&sb);
    ok(&bench(
        "oltp_read_write",
        "prepare",
        &conn,
        &["--table-size=1000"],
    ));
    let json = tmp.path().join("over.json");
    let out = ok(&bench(
        "oltp_read_write",
        "run",
        &conn,
        &[
            "--table-size=1000",
            "--rate=3000",
            "--threads=1",
            "--time=3",
            "--report-interval=1",
            "--json",
            json.to_str().unwrap(),
        ],
    ));
    let lines: Vec<(u64, f64)> = out.lines().filter_map(interval_percentile).collect();
    assert!(lines.len() >= 2, "{out}");
    assert!(
        lines.windows(2).all(|w| w[1].1 > w[0].1 * 1.3),
        "p95 must grow with the backlog: {lines:?}\n{out}"
    );
    assert!(out.contains("[ 1s ] queue length: "), "{out}");
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let avg: Vec<f64> = d["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["duration"].as_f64().unwrap() > 0.5)
        .map(|i| i["latency_ms"]["avg"].as_f64().unwrap())
        .collect();
    assert!(
        avg.len() >= 3 && avg.windows(2).all(|w| w[1] > w[0] + 100.0),
        "{avg:?}"
    );
    // Latency counts the wait; the schedule lag beside it shows that wait alone.
    let lag = d["totals"]["schedule_lag_ms"]["avg"].as_f64().unwrap();
    assert!(lag > 300.0, "{lag}");
    assert!(d["totals"]["due_not_started"].as_u64().unwrap() > 1000);
}

#[test]
fn unix_socket_transport() {
    let (_tmp, sb) = sandbox("sock");
    let conn = vec![
        format!("--mysql-socket={}", sb.socket().display()),
        "--mysql-user=root".to_string(),
        // A port nothing listens on: the socket must be what is used.
        "--mysql-port=1".to_string(),
    ];
    ok(&bench(
        "oltp_point_select",
        "prepare",
        &conn,
        &["--table-size=500"],
    ));
    // One connection for both snapshots: connecting may itself run a SELECT.
    let mut status = sb.admin_endpoint().connect().unwrap();
    let before = global_status(&mut status);
    let out = ok(&bench(
        "oltp_point_select",
        "run",
        &conn,
        &[
            "--table-size=500",
            "--events=500",
            "--threads=2",
            "--time=0",
        ],
    ));
    let after = global_status(&mut status);
    assert_eq!(report_count(&out, "transactions:"), 500);
    assert_eq!(after["Com_select"] - before["Com_select"], 500);
    ok(&bench("oltp_point_select", "cleanup", &conn, &[]));
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let conn = vec!["--mysql-port=1".to_string()];
    for (workload, extra, cause) in [
        ("oltp_read_write", &["--threads=0"][..], "--threads"),
        ("oltp_read_write", &["--time=-1"][..], "--time"),
        ("oltp_read_write", &["--time=0"][..], "forever"),
        (
            "oltp_read_write",
            &["--warmup-time=-5"][..],
            "--warmup-time",
        ),
        ("oltp_read_write", &["--percentile=0"][..], "--percentile"),
        ("oltp_frobnicate", &[][..], "oltp_point_select"),
    ] {
        let out = bench(workload, "run", &conn, extra);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{extra:?}: {stderr}");
        assert!(stderr.contains(cause), "{extra:?}: {stderr}");
    }
}

#[test]
fn more_clients_than_max_connections_fail_naming_the_limit() {
    let tmp = common::tempdir().unwrap();
    let mut spec = SandboxSpec::new("few", Home::new(tmp.path()));
    spec.options = vec![psbench::server::ServerOption::new("max_connections", "10")];
    let sb = psbench::engines::start(spec).unwrap();
    let conn = tcp(&sb);
    ok(&bench(
        "oltp_point_select",
        "prepare",
        &conn,
        &["--table-size=100", "--mysql-db=sbtest"],
    ));
    // MariaDB lets one more in for a privileged account: 10 + 1 < 16.
    let out = bench(
        "oltp_point_select",
        "run",
        &conn,
        &["--table-size=100", "--threads=16", "--time=1"],
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("too many connections") && err.contains("max_connections"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
