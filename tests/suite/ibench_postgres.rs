//! The Insert Benchmark on a real PostgreSQL sandbox, as the original runs it there
//! (docs/insert-benchmark.md#on-postgresql): its schema (a bigserial key whose sequence hands
//! out 1000 values per session, one CREATE INDEX per index), its statements (the DELETE of
//! the oldest keys through a subquery, range queries without hints, the highest key read
//! every 100 point queries), and its cleanup (every table vacuumed and analyzed, then a
//! checkpoint) — checked after every step of one sequence from the server's own catalogs and
//! pg_stat_statements.

use crate::common;

use common::pg::PgServer;
use psbench::ibench_sequence::{self, Measure, StepHost, Target};
use psbench::results::insert_benchmark::StepResult;
use psbench::workloads::ibench::{parse_steps, IbenchOptions, Step, ALL_STEPS, DATABASE};

const X: u64 = 5_050;
/// l.i0 rounds X up to whole 100-row statements.
const X_LOADED: u64 = 5_100;
const Y: u64 = 2_000;
const Z: u64 = 500;
const QUERY_SECONDS: u64 = 2;
const CLIENTS: u32 = 2;

/// Where a session's first key lands: the sequence hands out 1000 keys per session, so each
/// step's inserter starts after the block its predecessor took.
fn next_block(highest: i64) -> i64 {
    (highest + 999) / 1000 * 1000 + 1
}

struct Check<'a> {
    pg: &'a PgServer,
    /// The keys each step inserted into every table, in order, as (first, last): one
    /// session's run of keys.
    blocks: Vec<(i64, i64)>,
    deleted: u64,
    next_key: i64,
    results: Vec<StepResult>,
    /// Vacuums and analyzes of pi1, and requested checkpoints, when the cleanup started.
    before_cleanup: Option<(u64, u64, u64)>,
    after_cleanup: Option<(u64, u64, u64)>,
}

impl Check<'_> {
    /// The `k`-th key ever inserted (from 1).
    fn key(&self, k: u64) -> i64 {
        let mut left = k as i64;
        for (first, last) in &self.blocks {
            if left <= last - first + 1 {
                return first + left - 1;
            }
            left -= last - first + 1;
        }
        panic!("key {k} was never inserted")
    }

    fn one(&self, sql: &str) -> String {
        self.pg.rows(DATABASE, sql)[0][0].clone()
    }

    fn maintenance(&self) -> (u64, u64, u64) {
        let r = &self.pg.rows(
            DATABASE,
            "SELECT vacuum_count, analyze_count, (SELECT checkpoints_req FROM pg_stat_bgwriter) \
             FROM pg_stat_user_tables WHERE relname = 'pi1'",
        )[0];
        (
            r[0].parse().unwrap(),
            r[1].parse().unwrap(),
            r[2].parse().unwrap(),
        )
    }
}

impl StepHost for Check<'_> {
    fn cleanup_starting(&mut self, _seconds: f64) {
        self.before_cleanup = Some(self.maintenance());
    }

    fn step(&mut self, i: usize, step: &Step, measure: Measure) -> anyhow::Result<bool> {
        let name = step.name.clone();
        if self.before_cleanup.is_some() && self.after_cleanup.is_none() {
            self.after_cleanup = Some(self.maintenance());
        }
        // pg_stat_statements lives in database postgres: ib is created by l.i0.
        self.pg
            .rows("postgres", "SELECT pg_stat_statements_reset()");
        let start_span = match self.blocks.last() {
            Some((_, last)) => last - self.key(self.deleted + 1) + 1,
            None => 0,
        };
        let (r, _) = measure(11 + i as u64)?;
        assert_eq!(
            (r.errors, r.reconnects, r.short_deletes),
            (0, 0, 0),
            "{name}"
        );
        let per_table = |rows: u64| rows * CLIENTS as u64;
        let inserted = match name.as_str() {
            "l.i0" => X_LOADED,
            "l.x" => 100,
            "l.i1" => Y,
            "l.i2" => Z,
            _ => QUERY_SECONDS * step.rate().unwrap(),
        };
        assert_eq!(r.rows_inserted, per_table(inserted), "{name}");
        let deletes = !matches!(name.as_str(), "l.i0" | "l.x");
        if deletes {
            assert_eq!(r.rows_deleted, r.rows_inserted, "{name}: FIFO");
            self.deleted += inserted;
        }
        let last = self.next_key + inserted as i64 - 1;
        self.blocks.push((self.next_key, last));
        for n in 1..=CLIENTS {
            let t = format!("pi{n}");
            let range = &self.pg.rows(
                DATABASE,
                &format!("SELECT count(*), min(transactionid), max(transactionid) FROM {t}"),
            )[0];
            let rows = X_LOADED + if i == 0 { 0 } else { 100 };
            assert_eq!(range[0], rows.to_string(), "{name} {t}: rows");
            // Exactly the oldest keys went, and the step's keys are one session's run.
            assert_eq!(
                (range[1].parse::<i64>()?, range[2].parse::<i64>()?),
                (self.key(self.deleted + 1), last),
                "{name} {t}: key range"
            );
        }
        self.next_key = next_block(last);
        let calls = self.pg.rows(
            "postgres",
            "SELECT query, calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' \
             AND dbid = (SELECT oid FROM pg_database WHERE datname = 'ib') ORDER BY query",
        );
        let called = |prefix: &str| -> u64 {
            calls
                .iter()
                .filter(|c| c[0].starts_with(prefix))
                .map(|c| c[1].parse::<u64>().unwrap())
                .sum()
        };
        if deletes {
            assert_eq!(
                called("DELETE FROM pi"),
                r.delete_statements,
                "{name}: {calls:?}"
            );
            assert!(calls.iter().any(|c| c[0].starts_with(
                "DELETE FROM pi1 WHERE transactionid IN (SELECT transactionid FROM pi1 \
                 WHERE transactionid >= $1 ORDER BY transactionid ASC LIMIT "
            )));
        }
        assert_eq!(called("INSERT INTO pi"), r.insert_statements, "{name}");
        if name == "l.x" {
            for n in 1..=CLIENTS {
                let t = format!("pi{n}");
                let defs: Vec<String> = self
                    .pg
                    .rows(
                        DATABASE,
                        &format!(
                            "SELECT indexdef FROM pg_indexes WHERE tablename = '{t}' \
                             ORDER BY indexname"
                        ),
                    )
                    .into_iter()
                    .map(|r| r[0].clone())
                    .collect();
                let want = |i: &str, cols: &str| {
                    format!("CREATE INDEX {t}_{i} ON public.{t} USING btree ({cols})")
                };
                assert_eq!(
                    defs,
                    [
                        want("marketsegment", "productid, customerid, price"),
                        want("pdc", "price, dateandtime, customerid"),
                        format!(
                            "CREATE UNIQUE INDEX {t}_pkey ON public.{t} USING btree (transactionid)"
                        ),
                        want("registersegment", "cashregisterid, customerid, price"),
                    ]
                );
            }
            assert_eq!(called("CREATE INDEX"), 3 * CLIENTS as u64, "{calls:?}");
        }
        if name.starts_with("qr") {
            let fetched = r.fetched_per_query();
            assert!(fetched > 9.9 && fetched <= 10.0, "{name}: {fetched}");
            assert!(
                calls
                    .iter()
                    .filter(|c| c[0].starts_with("SELECT"))
                    .all(|c| !c[0].contains("FORCE")),
                "{calls:?}"
            );
            assert_eq!(called("SELECT productid"), r.range_queries.unwrap()[0]);
        }
        if name.starts_with("qp") {
            // The highest key at each querier's first query and every 100th after it.
            let max = called("SELECT max(transactionid)");
            let least = r.queries / 100;
            assert!(
                (least..=least + CLIENTS as u64).contains(&max),
                "{name}: {max} for {} queries",
                r.queries
            );
            assert_eq!(called("SELECT transactionid, productid, data"), r.queries);
            // Keys drawn between the lowest and the highest live key: a key in one of the
            // gaps the sequence's blocks leave finds no row, so 10 keys fetch 10 × the share
            // of the span that holds rows (at these tiny sizes well below 1).
            // The span is widest at the step's start or end, plus the gap the step's new
            // block opens.
            let live = (X_LOADED + 100) as f64;
            let end_span = last - self.key(self.deleted + 1) + 1;
            let widest = (start_span.max(end_span) + 999) as f64;
            let least = 10.0 * live / widest;
            let fetched = r.fetched_per_query();
            assert!(
                fetched >= 0.9 * least && fetched <= 10.0,
                "{name}: {fetched} rows per query, at least {least} expected"
            );
        }
        self.results.push(r);
        Ok(true)
    }
}

#[test]
fn every_step_runs_as_the_original_runs_it_on_postgresql() {
    let pg = PgServer::start();
    pg.rows("postgres", "CREATE EXTENSION pg_stat_statements");
    let o = IbenchOptions {
        clients: CLIENTS,
        rows: X,
        rows_i1: Y,
        rows_i2: Z,
        query_seconds: QUERY_SECONDS,
        cleanup_seconds: Some(0.5),
        ..IbenchOptions::default()
    };
    let endpoint = pg.sb.tcp_endpoint();
    let admin = pg.sb.admin_endpoint();
    let target = Target {
        endpoint: &endpoint,
        opts: &o,
        percentiles: &[],
    };
    let mut check = Check {
        pg: &pg,
        blocks: Vec::new(),
        deleted: 0,
        next_key: 1,
        results: Vec::new(),
        before_cleanup: None,
        after_cleanup: None,
    };
    let steps = parse_steps("all", &o).unwrap();
    ibench_sequence::run_sequence(&target, &admin, &steps, &mut check).unwrap();
    let names: Vec<&str> = check.results.iter().map(|r| r.step.as_str()).collect();
    assert_eq!(names, ALL_STEPS);
    // The cleanup vacuumed and analyzed every table once (autovacuum is off in this sandbox)
    // and asked for a checkpoint.
    let (v0, a0, c0) = check.before_cleanup.unwrap();
    let (v1, a1, c1) = check.after_cleanup.unwrap();
    assert_eq!((v1 - v0, a1 - a0), (1, 1), "vacuums and analyzes of pi1");
    assert!(c1 > c0, "a checkpoint was requested: {c0} → {c1}");

    // The schema: pi1's columns and the sequence's cache.
    let cols: Vec<Vec<String>> = pg.rows(
        DATABASE,
        "SELECT column_name, data_type, COALESCE(character_maximum_length::text, ''), \
         is_nullable FROM information_schema.columns WHERE table_name = 'pi1' \
         ORDER BY ordinal_position",
    );
    let want = [
        ["transactionid", "bigint", "", "NO"],
        ["dateandtime", "timestamp without time zone", "", "YES"],
        ["cashregisterid", "integer", "", "NO"],
        ["customerid", "integer", "", "NO"],
        ["productid", "integer", "", "NO"],
        ["price", "integer", "", "NO"],
        ["data", "character varying", "4000", "YES"],
    ];
    assert_eq!(cols, want.map(|r| r.map(String::from).to_vec()));
    assert_eq!(
        check.one(
            "SELECT cache_size FROM pg_sequences WHERE sequencename = 'pi1_transactionid_seq'"
        ),
        "1000"
    );
    // Rows: the original's domains, one timestamp per statement.
    let shape = &pg.rows(
        DATABASE,
        "SELECT max(cashregisterid) < 1000, max(productid) < 10000, max(customerid) < 100000, \
         max(price) < 500, min(length(data)), max(length(data)) FROM pi1",
    )[0];
    assert_eq!(shape, &["t", "t", "t", "t", "10", "20"]);
    // Each range query reads only its covering index; point queries the primary key.
    for (first, index) in [
        ("productid, customerid, price FROM pi1 WHERE productid >= 5 ORDER BY productid, customerid, price", "pi1_marketsegment"),
        ("cashregisterid, customerid, price FROM pi1 WHERE cashregisterid > 5 ORDER BY cashregisterid, customerid, price", "pi1_registersegment"),
        ("price, dateandtime, customerid FROM pi1 WHERE price >= 5 ORDER BY price, dateandtime, customerid", "pi1_pdc"),
    ] {
        let plan = pg.rows(DATABASE, &format!("EXPLAIN SELECT {first} LIMIT 10"));
        assert!(
            plan[1][0].contains(&format!("Index Only Scan using {index} on pi1")),
            "{plan:?}"
        );
    }
    let plan = pg.rows(
        DATABASE,
        "EXPLAIN SELECT transactionid, productid, data FROM pi1 WHERE transactionid IN (4000, 4001)",
    );
    assert!(plan.iter().any(|r| r[0].contains("pi1_pkey")), "{plan:?}");
}

#[test]
fn a_postgres_study_runs_and_prices_the_insert_benchmark() {
    let (r, md) = common::run_study(
        r#"
name = "pg-ib"
mode = "both"
base = "off"
cost_workloads = ["ib"]
threads = [1]
rounds = 1
[cost]
events = [60, 120, 180]
warmup_events = 30
ibench_rows = 3000
ibench_rows_i1 = 600
ibench_rows_i2 = 300
[[variant]]
name = "off"
engine = "postgres"
scenario = "pg_off"
[[variant]]
name = "pgss"
engine = "postgres"
scenario = "pgss_top"
[[workload]]
name = "ib"
workload = "insert-benchmark"
steps = ["l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100"]
options = { rows = 3000, rows_i1 = 600, rows_i2 = 300, query_seconds = 1, cleanup_seconds = 0 }
"#,
    );
    let cells = r["cells"].as_array().unwrap();
    for variant in ["off", "pgss"] {
        for step in ["l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100"] {
            let c = cells
                .iter()
                .find(|c| c["variant"] == variant && c["step"] == format!("ib {step}"))
                .unwrap_or_else(|| panic!("no {variant} {step} cell: {md}"));
            assert_eq!(c["ok"], true, "{c}");
            let rows = if step == "l.i0" { 3_000 } else { 3_100 };
            assert_eq!(c["insert_benchmark"]["rows_after"], rows, "{c}");
            // The server's CPU is its whole process tree: the backends did the work.
            assert!(
                c["resources"]["server_cpu_us_per_txn"].as_f64().unwrap() > 0.0,
                "{c}"
            );
        }
    }
    let cost = r["cost"].as_array().unwrap();
    let get = |v: &str, step: &str| {
        cost.iter()
            .find(|c| c["variant"] == v && c["step"] == format!("ib {step}"))
            .unwrap_or_else(|| panic!("no cost of {v} {step}: {cost:#?}"))
    };
    for v in ["off", "pgss"] {
        for (step, rows) in [("l.i0", 3000), ("l.x", 3100), ("l.i1", 600), ("l.i2", 300)] {
            let c = get(v, step);
            assert_eq!(
                (c["ok"].clone(), c["unit"].clone()),
                (true.into(), "row".into()),
                "{c}"
            );
            let w = c["windows"].as_array().unwrap();
            assert_eq!(w.len(), 2, "two attempts from the same table: {c}");
            assert!(w.iter().all(|x| x["events"] == rows), "{c}");
            let per: Vec<f64> = w
                .iter()
                .map(|x| x["ir"].as_f64().unwrap() / rows as f64)
                .collect();
            let apart = (per[0] - per[1]).abs() / per[0].min(per[1]);
            assert_eq!(c["unstable"] == true, apart > 0.005, "{c}");
            // The backend's work less a baseline backend's: thousands of instructions per
            // row. The baseline's start-up (about 48 million instructions here) left in
            // would put l.i2's 300 rows above 150,000 each.
            let ir = c["ir_per_txn"].as_f64().unwrap();
            assert!((5_000.0..400_000.0).contains(&ir), "{step}: {ir} per row");
        }
        for step in ["qr100", "qp100"] {
            let c = get(v, step);
            assert_eq!(
                (c["ok"].clone(), c["unit"].clone()),
                (true.into(), "query".into()),
                "{c}"
            );
        }
    }
    // pg_stat_statements' hooks run for every query: measured here (2026-11-25,
    // PostgreSQL 15.18) about +1,900 of 136,000 instructions per range query.
    let per = |v: &str, s: &str| get(v, s)["ir_per_txn"].as_f64().unwrap();
    assert!(
        per("pgss", "qr100") > per("off", "qr100") * 1.005,
        "{cost:#?}"
    );
    assert!(md.contains("| ib qr100 | pgss | query |"), "{md}");
    assert!(
        r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("qr100 stands for qr500")),
        "{}",
        r["notes"]
    );
}

#[test]
fn the_command_runs_on_postgresql_and_refuses_a_storage_engine() {
    let pg = PgServer::start();
    let tmp = common::tempdir().unwrap();
    let password = pg.sb.password().to_string();
    let run = |extra: &[&str]| {
        common::psbench(&tmp.path().join("home"))
            .args([
                "bench",
                "insert-benchmark",
                "--db-driver=pgsql",
                "--pgsql-host=127.0.0.1",
                &format!("--pgsql-port={}", pg.sb.port()),
                "--pgsql-user=postgres",
                "--rows=2000",
                "--query-seconds=1",
                "--cleanup-seconds=0",
            ])
            .env("PSBENCH_PGSQL_PASSWORD", &password)
            .args(extra)
            .output()
            .unwrap()
    };
    let json = tmp.path().join("docs");
    let o = run(&[
        "--steps=l.i0,l.x,qp100",
        "--json-dir",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::text(&o));
    let qp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json.join("qp100.json")).unwrap()).unwrap();
    let ib = &qp["insert_benchmark"];
    assert_eq!(ib["rows_after"], 2_100, "{ib}");
    assert!(ib["queries"].as_u64().unwrap() > 10, "{ib}");
    let o = run(&["--steps=l.i0", "--engine=RocksDB"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o));
    assert!(
        common::text(&o)
            .contains("--engine RocksDB: a MySQL storage engine; PostgreSQL's tables have none"),
        "{}",
        common::text(&o)
    );
}
