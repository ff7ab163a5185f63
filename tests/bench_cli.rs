//! `psbench bench` and the driver against a real sandbox of the system mariadbd.
//!
//! The driver's own paths (retries, reconnects, fatal errors, the open-loop backlog) are
//! driven by small workloads defined here; the CLI tests run the built binary with the
//! sysbench workloads.

mod common;

use mysql::prelude::Queryable;
use psbench::connection::Endpoint;
use psbench::connection::Session;
use psbench::console::{self, RunContext};
use psbench::driver::{self, RunOptions};
use psbench::server::{Home, Sandbox, SandboxSpec};
use psbench::workloads::{EventError, QueryCounters, Worker, Workload};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

fn sandbox(name: &str) -> (tempfile::TempDir, Sandbox) {
    let tmp = common::tempdir().unwrap();
    let sb = psbench::engines::start(SandboxSpec::new(name, Home::new(tmp.path()))).unwrap();
    (tmp, sb)
}

/// What a test workload saw from the inside, to compare with what the driver reports.
#[derive(Default)]
struct Seen {
    selects: AtomicU64,
    retryable: AtomicU64,
    killed: AtomicU64,
    reconnected: AtomicU64,
}

/// `SELECT <sql>` per event. Every `retry_every`th call fails as a deadlock would; every
/// `kill_every`th call kills its own connection; call `fatal_at` fails for good.
struct Probe {
    sql: &'static str,
    retry_every: u64,
    kill_every: u64,
    fatal_at: u64,
    seen: Arc<Seen>,
}

struct ProbeWorker {
    sql: &'static str,
    retry_every: u64,
    kill_every: u64,
    fatal_at: u64,
    calls: u64,
    seen: Arc<Seen>,
}

impl Workload for Probe {
    fn name(&self) -> &str {
        "probe"
    }
    fn prepare(&self, _: &Endpoint, _: usize, _: u64) -> anyhow::Result<()> {
        Ok(())
    }
    fn cleanup(&self, _: &Endpoint) -> anyhow::Result<()> {
        Ok(())
    }
    fn worker(
        &self,
        _: usize,
        _: usize,
        _: u64,
        _: &mut Session,
    ) -> anyhow::Result<Box<dyn Worker>> {
        Ok(Box::new(ProbeWorker {
            sql: self.sql,
            retry_every: self.retry_every,
            kill_every: self.kill_every,
            fatal_at: self.fatal_at,
            calls: 0,
            seen: self.seen.clone(),
        }))
    }
}

fn every(n: u64, k: u64) -> bool {
    k > 0 && n.is_multiple_of(k)
}

impl Worker for ProbeWorker {
    fn event(&mut self, conn: &mut Session, q: &mut QueryCounters) -> Result<(), EventError> {
        self.calls += 1;
        if self.calls == self.fatal_at {
            return Err(EventError::Fatal(anyhow::anyhow!(
                "statement `SELECT boom` failed: ERROR 1054 (42S22): Unknown column 'boom'"
            )));
        }
        if every(self.calls, self.retry_every) {
            self.seen.retryable.fetch_add(1, Ordering::Relaxed);
            return Err(EventError::Retryable {
                code: "1213".into(),
                message: "Deadlock found".into(),
            });
        }
        if every(self.calls, self.kill_every) {
            let id = conn.connection_id();
            let _ = conn.query(&format!("KILL {id}"));
            self.seen.killed.fetch_add(1, Ordering::Relaxed);
        }
        match conn.query(self.sql) {
            Ok(_) => {
                q.reads += 1;
                self.seen.selects.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => Err(EventError::ConnectionLost(e.to_string())),
        }
    }
    fn reconnected(&mut self, _: &mut Session) -> anyhow::Result<()> {
        self.seen.reconnected.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

fn probe(sql: &'static str) -> Probe {
    Probe {
        sql,
        retry_every: 0,
        kill_every: 0,
        fatal_at: 0,
        seen: Arc::new(Seen::default()),
    }
}

fn run_probe(
    w: &Probe,
    ep: &Endpoint,
    opts: &RunOptions,
) -> (anyhow::Result<driver::RunReport>, String) {
    let ctx = RunContext {
        endpoint: ep,
        workload_options: &serde_json::Value::Null,
        command_line: &[],
    };
    let mut out = Vec::new();
    let r = console::sysbench::run(w, ep, opts, &ctx, &mut out);
    (r, String::from_utf8(out).unwrap())
}

#[test]
fn retries_and_reconnects_are_counted_and_events_still_complete() {
    let (_tmp, sb) = sandbox("retry");
    let ep = sb.tcp_endpoint();
    let w = Probe {
        retry_every: 7,
        kill_every: 50,
        ..probe("SELECT 1")
    };
    let opts = RunOptions {
        threads: 2,
        time: 0.0,
        events: 400,
        ..Default::default()
    };
    let (r, out) = run_probe(&w, &ep, &opts);
    let r = r.unwrap();
    let seen = &w.seen;
    assert_eq!(r.totals.events, 400, "{out}");
    assert_eq!(r.totals.errors, seen.retryable.load(Ordering::Relaxed));
    assert!(r.totals.errors >= 400 / 7, "{}", r.totals.errors);
    let killed = seen.killed.load(Ordering::Relaxed);
    assert!(killed >= 6, "{killed}");
    assert_eq!(r.totals.reconnects, killed);
    assert_eq!(seen.reconnected.load(Ordering::Relaxed), killed);
    // Every completed event made exactly one successful SELECT.
    assert_eq!(r.totals.queries.reads, 400);
    assert_eq!(seen.selects.load(Ordering::Relaxed), 400);
    assert!(
        out.contains(&format!(
            "    ignored errors:                      {:<6} (",
            r.totals.errors
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "    reconnects:                          {:<6} (",
            killed
        )),
        "{out}"
    );
}

#[test]
fn a_fatal_error_ends_the_run_with_the_statement_and_exit_code_1() {
    let (_tmp, sb) = sandbox("fatal");
    let ep = sb.tcp_endpoint();
    let w = Probe {
        fatal_at: 30,
        ..probe("SELECT 1")
    };
    let opts = RunOptions {
        threads: 2,
        time: 5.0,
        ..Default::default()
    };
    let t = std::time::Instant::now();
    let (r, _) = run_probe(&w, &ep, &opts);
    let e = r.err().expect("the run must fail");
    assert!(
        t.elapsed().as_secs_f64() < 3.0,
        "the run did not stop at once"
    );
    let msg = psbench::error::one_line(&e);
    assert!(msg.contains("SELECT boom") && msg.contains("1054"), "{msg}");
    assert_eq!(psbench::error::exit_code(&e), 1);
}

#[test]
fn open_loop_latency_counts_from_the_intended_start_and_grows_with_the_backlog() {
    let (_tmp, sb) = sandbox("backlog");
    let ep = sb.tcp_endpoint();
    // One thread that needs >= 4 ms per event cannot keep up with 500 arrivals per second.
    let w = probe("SELECT SLEEP(0.004)");
    let opts = RunOptions {
        threads: 1,
        time: 3.0,
        rate: 500.0,
        report_interval: 1,
        ..Default::default()
    };
    let (r, out) = run_probe(&w, &ep, &opts);
    let r = r.unwrap();
    let p95: Vec<f64> = r
        .seconds
        .iter()
        .map(|s| s.latency_ms.percentiles["95"])
        .collect();
    assert!(p95.len() >= 3, "{out}");
    // Service time is ~4 ms; from the intended start the wait grows by ~0.5 s each second.
    assert!(
        p95[1] > p95[0] + 200.0 && p95[2] > p95[1] + 200.0,
        "{p95:?}\n{out}"
    );
    let lag = r.seconds[2].schedule_lag_ms.as_ref().unwrap();
    assert!(lag.percentiles["50"] > 500.0, "{lag:?}");
    assert!(r.dropped.unwrap() > 500, "{:?}", r.dropped);
    assert!(out.contains("[ 2s ] queue length: "), "{out}");
    assert!(
        out.contains("schedule lag (ms) p50/p95/p99/p99.9/max:"),
        "{out}"
    );
}

#[test]
fn open_loop_under_capacity_keeps_the_rate_after_an_unmeasured_warmup() {
    let (_tmp, sb) = sandbox("rate");
    let ep = sb.tcp_endpoint();
    let w = probe("SELECT 1");
    let opts = RunOptions {
        threads: 2,
        time: 2.0,
        warmup_time: 1.0,
        rate: 400.0,
        ..Default::default()
    };
    let (r, out) = run_probe(&w, &ep, &opts);
    let r = r.unwrap();
    // The warm-up second ran (the workload saw it) but is in no statistic.
    let all = w.seen.selects.load(Ordering::Relaxed);
    assert!(all > r.totals.events + 250, "{all} vs {}", r.totals.events);
    assert!(r.total_time_s < 2.5, "{}", r.total_time_s);
    let tps = r.totals.events as f64 / r.total_time_s;
    assert!((340.0..460.0).contains(&tps), "{tps}\n{out}");
    // No backlog: with the rate kept, most transactions start when due (latency counts from
    // the intended start) and few are left due at the end. p99 is not asked: on a loaded
    // machine (CI beside CI) scheduling stalls put it at 105 ms while the rate held.
    let p50 = r.totals.latency().percentile_ms(50.0);
    assert!(p50 < 50.0, "{p50}\n{out}");
    assert!(r.dropped.unwrap() < 40, "{:?}\n{out}", r.dropped);
}

// ---- the `psbench bench` command line, with the sysbench workloads ----

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
