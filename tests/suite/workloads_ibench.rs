//! The Insert Benchmark against a real MariaDB sandbox: the compatibility checks of
//! docs/insert-benchmark.md#how-it-is-tested after every step of one sequence, the SLA flag when the
//! writers are asked for more than the server can do, and the command line's documents.

use crate::common;

use mysql::prelude::Queryable;
use psbench::connection::Dialect;
use psbench::ibench_sequence::{self, Measure, StepHost, Target};
use psbench::results::insert_benchmark::StepResult;
use psbench::server::{Home, Sandbox, SandboxSpec};
use psbench::workloads::ibench::{
    parse_steps, point_sql, range_sql, IbenchOptions, Step, DATABASE,
};

/// X is not a multiple of 100: l.i0 rounds it up to whole 100-row statements.
const X: u64 = 20_050;
const X_LOADED: u64 = 20_100;
const Y: u64 = 4_000;
const Z: u64 = 1_000;
const QUERY_SECONDS: u64 = 2;

fn options() -> IbenchOptions {
    IbenchOptions {
        clients: 2,
        rows: X,
        rows_i1: Y,
        rows_i2: Z,
        query_seconds: QUERY_SECONDS,
        cleanup_seconds: Some(0.5),
        ..IbenchOptions::default()
    }
}

/// The SLA test saturates both cores on purpose, and the command test runs a server and its
/// writers of its own: the rate checks of the sequence must not run beside either.
static CORES: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn start(dir: &std::path::Path, name: &str) -> Sandbox {
    psbench::engines::start(SandboxSpec::new(name, Home::new(dir))).expect("starting a sandbox")
}

/// A test that loads the machine: the cores held for it, its own sandbox (declared first, so
/// that it stops before its directory goes and the cores are let go).
struct Loaded {
    sb: Sandbox,
    dir: tempfile::TempDir,
    _cores: std::sync::MutexGuard<'static, ()>,
}

fn loaded(name: &str) -> Loaded {
    let _cores = CORES.lock().unwrap_or_else(|e| e.into_inner());
    let dir = common::tempdir_builder()
        .prefix("pib")
        .tempdir_in("/tmp")
        .unwrap();
    let sb = start(dir.path(), name);
    Loaded { sb, dir, _cores }
}

/// (count, min, max) of every table, from the server itself.
fn table_ranges(conn: &mut mysql::Conn, clients: u32) -> Vec<(u64, i64, i64)> {
    (1..=clients)
        .map(|n| {
            conn.query_first(format!(
                "SELECT COUNT(*), MIN(transactionid), MAX(transactionid) FROM {DATABASE}.pi{n}"
            ))
            .unwrap()
            .unwrap()
        })
        .collect()
}

fn indexes(conn: &mut mysql::Conn, table: &str) -> Vec<(String, String)> {
    let mut idx: Vec<(String, String)> = conn
        .exec_map(
            "SELECT index_name, GROUP_CONCAT(column_name ORDER BY seq_in_index) \
         FROM information_schema.statistics WHERE table_schema = ? AND table_name = ? \
         GROUP BY index_name ORDER BY index_name",
            (DATABASE, table),
            |(i, c): (String, String)| (i, c),
        )
        .unwrap();
    // By name, byte-wise: the server's collation sorts case-insensitively.
    idx.sort();
    idx
}

/// Checks the tables and each step's figures after every step of a sequence.
struct Invariants<'a> {
    admin: mysql::Conn,
    o: &'a IbenchOptions,
    /// The lowest and highest primary key every table must hold.
    lo: i64,
    hi: i64,
    results: Vec<StepResult>,
    /// The steps the cleanup ran before.
    cleanups: Vec<String>,
}

impl StepHost for Invariants<'_> {
    fn cleanup_starting(&mut self, _seconds: f64) {
        self.cleanups.push(String::new());
    }

    fn step(&mut self, i: usize, step: &Step, measure: Measure) -> anyhow::Result<bool> {
        if let Some(last) = self.cleanups.last_mut().filter(|c| c.is_empty()) {
            *last = step.name.clone();
        }
        let (r, _) = measure(7 + i as u64)?;
        let Invariants {
            admin, o, lo, hi, ..
        } = self;
        let ranges = table_ranges(admin, o.clients);
        let name = step.name.as_str();
        assert_eq!(
            (r.errors, r.reconnects, r.short_deletes),
            (0, 0, 0),
            "{name}"
        );
        assert!(!r.incomplete, "{name}");
        let per_table = |rows: u64| rows * o.clients as u64;
        match name {
            "l.i0" => {
                *hi = X_LOADED as i64;
                assert_eq!(r.rows_inserted, per_table(X_LOADED));
                assert_eq!(r.insert_statements, per_table(X_LOADED / 100));
                assert_eq!(r.delete_statements, 0);
                for n in 1..=o.clients {
                    let idx = indexes(admin, &format!("pi{n}"));
                    assert_eq!(idx, [("PRIMARY".into(), "transactionid".into())]);
                }
            }
            "l.x" => {
                *hi += 100;
                assert_eq!(r.rows_inserted, per_table(100));
                assert_eq!(r.unit, "indexed rows/s");
                for n in 1..=o.clients {
                    let t = format!("pi{n}");
                    let idx = indexes(admin, &t);
                    let want: Vec<(String, String)> = [
                        ("PRIMARY", "transactionid"),
                        ("marketsegment", "productid,customerid,price"),
                        ("pdc", "price,dateandtime,customerid"),
                        ("registersegment", "cashregisterid,customerid,price"),
                    ]
                    .iter()
                    .map(|(i, c)| {
                        let i = if *i == "PRIMARY" {
                            i.to_string()
                        } else {
                            format!("{t}_{i}")
                        };
                        (i, c.to_string())
                    })
                    .collect();
                    let mut want = want;
                    want.sort();
                    assert_eq!(idx, want, "{t} after l.x");
                }
            }
            _ => {
                let (rows, per) = match name {
                    "l.i1" => (Y, 50),
                    "l.i2" => (Z, 5),
                    _ => (QUERY_SECONDS * step.rate().unwrap(), 50),
                };
                *lo += rows as i64;
                *hi += rows as i64;
                assert_eq!(r.rows_inserted, per_table(rows), "{name}");
                assert_eq!(
                    r.rows_deleted, r.rows_inserted,
                    "{name}: inserts equal deletes"
                );
                assert_eq!(r.insert_statements, per_table(rows / per), "{name}");
                assert_eq!(r.delete_statements, r.insert_statements, "{name}");
            }
        }
        for (count, min, max) in &ranges {
            assert_eq!(
                *count,
                X_LOADED + if i == 0 { 0 } else { 100 },
                "{name}: rows"
            );
            assert_eq!((*min, *max), (*lo, *hi), "{name}: key range");
        }
        assert_eq!(
            r.rows_after,
            ranges.iter().map(|t| t.0).sum::<u64>(),
            "{name}"
        );
        if let Some(b) = &r.background {
            // Never ahead of the schedule; the SLA flag says what the rate says.
            assert!(b.ratio < 1.05, "{name}: {b:?}");
            assert_eq!(b.below_target, b.ratio < 0.95, "{name}: {b:?}");
            // 200 rows/s over two clients is kept on any machine that runs these tests;
            // whether 2,000 are, beside two closed-loop queriers on two cores, is the
            // machine's answer (a qr1000 at 0.68 of its target in CI), not psbench's.
            if step.rate() == Some(100) {
                assert!(!b.below_target, "{name}: {b:?}");
            }
            // The step lasts its length when the writers keep their rate.
            if !b.below_target {
                assert!(
                    (r.seconds - QUERY_SECONDS as f64).abs() < 0.5,
                    "{name}: {}",
                    r.seconds
                );
            }
            let fetched = r.fetched_per_query();
            assert!(r.queries > 100, "{name}: {} queries", r.queries);
            if name.starts_with("qr") {
                // 10 rows, except a register query from the top of its domain.
                assert!(fetched > 9.9 && fetched <= 10.0, "{name}: {fetched}");
                let mix = r.range_queries.unwrap();
                for n in mix {
                    let share = n as f64 / r.queries as f64;
                    assert!((share - 1.0 / 3.0).abs() < 0.05, "{name}: mix {mix:?}");
                }
            } else {
                assert!(fetched > 9.5 && fetched <= 10.0, "{name}: {fetched}");
            }
        }
        self.results.push(r);
        Ok(true)
    }
}

#[test]
fn every_step_keeps_the_specs_invariants() {
    let machine = loaded("ib");
    let sb = &machine.sb;
    let o = options();
    let endpoint = sb.tcp_endpoint();
    let target = Target {
        endpoint: &endpoint,
        opts: &o,
        percentiles: &[],
    };
    let admin_endpoint = sb.admin_endpoint();
    let steps = parse_steps("all", &o).unwrap();
    // The sequence both `bench insert-benchmark` and studies run, with the invariants checked
    // after every step.
    let mut check = Invariants {
        admin: admin_endpoint.connect().unwrap(),
        o: &o,
        lo: 1,
        hi: 0,
        results: Vec::new(),
        cleanups: Vec::new(),
    };
    ibench_sequence::run_sequence(&target, &admin_endpoint, &steps, &mut check).unwrap();
    assert_eq!(
        check.cleanups,
        ["qr100"],
        "the cleanup comes between l.i2 and qr100, once"
    );
    let Invariants {
        mut admin,
        lo,
        results,
        ..
    } = check;
    let names: Vec<&str> = results.iter().map(|r| r.step.as_str()).collect();
    assert_eq!(names, psbench::workloads::ibench::ALL_STEPS);

    // Row shape (docs/insert-benchmark.md#tables-and-rows): domains, the data column, one timestamp per statement.
    let (a, b, c, d, e, f, g): (i64, i64, i64, i64, i64, i64, i64) = admin
        .query_first(format!(
            "SELECT MIN(cashregisterid), MAX(cashregisterid), MAX(productid), MAX(customerid), \
             MAX(price), MIN(LENGTH(data)), MAX(LENGTH(data)) FROM {DATABASE}.pi1"
        ))
        .unwrap()
        .unwrap();
    assert_eq!(a, 0);
    assert!((900..1000).contains(&b) && c < 10_000 && d < 100_000 && e < 500);
    assert_eq!((f, g), (10, 20));
    let datas: Vec<String> = admin
        .query(format!("SELECT data FROM {DATABASE}.pi1 LIMIT 200"))
        .unwrap();
    for s in datas {
        let random = (s.len() as f64 * 0.375) as usize;
        assert!(s[..s.len() - random].bytes().all(|c| c == b'a'), "{s}");
    }
    let per_statement: u64 = admin
        .query_first(format!(
            "SELECT COUNT(DISTINCT dateandtime) FROM {DATABASE}.pi1 WHERE transactionid BETWEEN {lo} AND {}",
            lo + 49
        ))
        .unwrap()
        .unwrap();
    assert!(per_statement <= 2, "one statement's rows share its time");

    // Each range query reads only its covering index; point queries only the primary key.
    for (sql, index) in range_sql("pi1", 10, Dialect::mysql()).iter().zip([
        "marketsegment",
        "registersegment",
        "pdc",
    ]) {
        let plan: Vec<mysql::Row> = admin
            .query(format!(
                "EXPLAIN {}",
                sql.replace('?', "5").replace("FROM pi1", "FROM ib.pi1")
            ))
            .unwrap();
        let key: Option<String> = plan[0].get("key").unwrap();
        let extra: Option<String> = plan[0].get("Extra").unwrap();
        assert_eq!(key, Some(format!("pi1_{index}")), "{sql}: {plan:?}");
        assert!(
            extra.unwrap_or_default().contains("Using index"),
            "{sql}: {plan:?}"
        );
    }
    let plan: Vec<mysql::Row> = admin
        .query(format!(
            "EXPLAIN {}",
            point_sql("ib.pi1", 10).replace('?', &(lo + 3).to_string())
        ))
        .unwrap();
    let key: Option<String> = plan[0].get("key").unwrap();
    assert_eq!(key.as_deref(), Some("PRIMARY"), "{plan:?}");
}

#[test]
fn a_rate_the_server_cannot_keep_is_flagged_and_its_latency_counts_the_wait() {
    let machine = loaded("sla");
    let sb = &machine.sb;
    let o = IbenchOptions {
        rows: 5_000,
        query_seconds: 1,
        ..IbenchOptions::default()
    };
    let endpoint = sb.tcp_endpoint();
    let target = Target {
        endpoint: &endpoint,
        opts: &o,
        percentiles: &[],
    };
    for s in parse_steps("l.i0,l.x", &o).unwrap() {
        ibench_sequence::run_step(&target, &s, 1).unwrap();
    }
    // 200k rows/s in 50-row statements: 4,000 commits/s with indexes and deletes, on 2 cores.
    let step = &parse_steps("qr200000", &o).unwrap()[0];
    let (r, _) = ibench_sequence::run_step(&target, step, 2).unwrap();
    let b = r.background.clone().unwrap();
    assert!(b.below_target, "{b:?}");
    assert!(b.ratio < 0.95);
    assert!(b.seconds_on_schedule < 0.5, "{b:?}");
    // Counted from the intended start: the backlog shows in the writers' latency.
    let insert_p99 = r.latency_ms["insert"].percentiles["99"];
    assert!(insert_p99 > 100.0, "insert p99 {insert_p99} ms");
    // The row count is the step's definition: all of it was inserted, late.
    assert_eq!(r.rows_inserted, 200_000);
    assert_eq!(r.rows_after, 5_100);
    let mut text = psbench::console::ibench_text::summary(&[r]);
    assert!(text.contains("LOW"), "{text}");
    text.clear();
}

#[test]
fn the_command_writes_bench_documents_and_refuses_bad_input() {
    // Its server and writers would take the CPU the sequence's rate checks need.
    let machine = loaded("cli");
    let (sb, dir) = (&machine.sb, &machine.dir);
    let port = sb.port().to_string();
    let json = dir.path().join("json");
    let run = |args: &[&str]| {
        common::psbench(dir.path())
            .args([
                "bench",
                "insert-benchmark",
                "--mysql-port",
                &port,
                "--mysql-user",
                "root",
            ])
            .arg(format!(
                "--mysql-password-file={}",
                sb.state().client_defaults().display()
            ))
            .args(args)
            .output()
            .unwrap()
    };
    // A step that needs the tables of l.i0, on a server without them.
    let out = run(&["--steps", "l.i1", "--rows", "1000"]);
    assert_eq!(out.status.code(), Some(2), "{}", common::text(&out));
    assert!(
        common::text(&out).contains("run l.i0 first"),
        "{}",
        common::text(&out)
    );
    let out = run(&["--steps", "l.i0,l.i9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::text(&out).contains("unknown Insert Benchmark step 'l.i9'"));
    let out = run(&["--clients", "0"]);
    assert_eq!(out.status.code(), Some(2));

    let out = run(&[
        "--steps",
        "l.i0,l.x,qp100",
        "--rows",
        "3000",
        "--query-seconds",
        "1",
        "--cleanup-seconds",
        "0",
        "--rand-seed",
        "5",
        "--json-dir",
        json.to_str().unwrap(),
    ]);
    let text = common::text(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("qp100:") && text.contains("% per bucket"),
        "{text}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json.join("qp100.json")).unwrap()).unwrap();
    assert_eq!(doc["format"], psbench::results::bench::FORMAT);
    assert_eq!(doc["version"], psbench::results::bench::VERSION);
    assert_eq!(doc["workload"], "insert-benchmark qp100");
    assert_eq!(doc["seed"], 7);
    let ib = &doc["insert_benchmark"];
    assert_eq!(ib["rows_after"], 3_100);
    assert_eq!(ib["rows_inserted"], 100);
    assert_eq!(
        ib["original_histograms"]["query"]["counts"]
            .as_array()
            .unwrap()
            .len(),
        10
    );
    let classes: Vec<&str> = doc["totals"]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(classes, ["insert", "delete", "query", "create_index"]);
    assert!(!doc["intervals"].as_array().unwrap().is_empty());
    assert!(json.join("l.i0.json").exists() && json.join("l.x.json").exists());
}
