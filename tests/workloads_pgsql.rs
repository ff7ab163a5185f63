//! The sysbench OLTP workloads on PostgreSQL, with the installed sysbench 1.0.20's pgsql
//! driver as the reference on the same sandbox: statements per transaction by type (from
//! pg_stat_statements' calls), rows they returned, commits and rollbacks (pg_stat_database),
//! and the client's read/write/other counts.

mod common;

use common::{psbench, text};
use psbench::connection::PgEndpoint;
use psbench::server::{Flavour, Home, Sandbox, SandboxSpec};
use std::collections::BTreeMap;
use std::process::Command;

const EVENTS: u64 = 400;
const TABLE_SIZE: &str = "2000";

struct Server {
    sb: Sandbox,
    _home: tempfile::TempDir,
}

impl Server {
    fn start() -> Server {
        let home = common::tempdir_builder()
            .prefix("pgw")
            .tempdir_in("/tmp")
            .unwrap();
        let mut spec = SandboxSpec::new("w", Home::new(home.path()));
        spec.flavour = Some(Flavour::Postgres);
        let spec = spec
            .option("shared_preload_libraries=pg_stat_statements")
            .unwrap()
            .option("pg_stat_statements.track=all")
            .unwrap()
            // Its transactions would count in pg_stat_database at random moments.
            .option("autovacuum=off")
            .unwrap();
        let sb = Sandbox::start(spec).unwrap();
        Server { sb, _home: home }
    }

    fn admin(&self, db: &str) -> PgEndpoint {
        self.sb.state().pg_admin_endpoint().with_database(db)
    }

    fn rows(&self, db: &str, sql: &str) -> Vec<Vec<String>> {
        self.admin(db)
            .connect()
            .unwrap()
            .query(sql)
            .unwrap()
            .into_iter()
            .map(|r| r.into_iter().map(Option::unwrap_or_default).collect())
            .collect()
    }

    /// Connection options for both clients, on `tables` of the prepared tables.
    fn options(&self, tables: u32) -> Vec<String> {
        vec![
            "--db-driver=pgsql".into(),
            "--pgsql-host=127.0.0.1".into(),
            format!("--pgsql-port={}", self.sb.port()),
            "--pgsql-user=postgres".into(),
            "--pgsql-db=sbtest".into(),
            format!("--tables={tables}"),
            format!("--table-size={TABLE_SIZE}"),
        ]
    }

    fn reset(&self) {
        self.rows("sbtest", "SELECT pg_stat_statements_reset()");
        self.rows("sbtest", "SELECT pg_stat_reset()");
    }

    /// Calls and rows per statement shape (table numbers folded: sbtestN → sbtest), and
    /// commits and rollbacks of the database, since the last reset.
    fn counts(&self) -> (BTreeMap<String, (u64, u64)>, (u64, u64)) {
        let mut shapes = BTreeMap::new();
        let q = "SELECT query, calls, rows FROM pg_stat_statements \
                 WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'sbtest') \
                 AND query NOT LIKE '%pg_stat%'";
        for r in self.rows("sbtest", q) {
            let shape: String = fold_tables(&r[0]);
            let e = shapes.entry(shape).or_insert((0, 0));
            e.0 += r[1].parse::<u64>().unwrap();
            e.1 += r[2].parse::<u64>().unwrap();
        }
        // A backend reports its transactions when it ends; the clients have ended, and the
        // server flushes within a second.
        std::thread::sleep(std::time::Duration::from_millis(1200));
        let x = &self.rows(
            "sbtest",
            "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = 'sbtest'",
        )[0];
        (shapes, (x[0].parse().unwrap(), x[1].parse().unwrap()))
    }
}

fn fold_tables(query: &str) -> String {
    let mut out = String::new();
    let mut rest = query;
    while let Some(i) = rest.find("sbtest") {
        out.push_str(&rest[..i + 6]);
        rest = rest[i + 6..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// sysbench's `read:`, `write:`, `other:` lines.
fn rwo(stdout: &str) -> [u64; 3] {
    let mut v = [0; 3];
    for (i, key) in ["read:", "write:", "other:"].iter().enumerate() {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap();
        v[i] = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    }
    v
}

#[test]
fn oltp_workloads_issue_what_sysbench_pgsql_issues() {
    let s = Server::start();
    let password = s.sb.password().to_string();
    let prep = psbench(std::path::Path::new("/nonexistent"))
        .args(["bench", "oltp_read_write", "prepare"])
        .args(s.options(2))
        .env("PSBENCH_PGSQL_PASSWORD", &password)
        .output()
        .unwrap();
    assert!(prep.status.success(), "{}", text(&prep));
    s.rows("sbtest", "CREATE EXTENSION pg_stat_statements");

    for (workload, tables) in [
        ("oltp_read_write", 2),
        ("oltp_read_only", 2),
        ("oltp_point_select", 2),
        ("oltp_write_only", 2),
        ("oltp_update_index", 2),
        ("oltp_update_non_index", 2),
        ("oltp_insert", 2),
        // psbench refuses more tables for these (sysbench reads only sbtest1 anyway).
        ("select_random_points", 1),
        ("select_random_ranges", 1),
        ("oltp_delete", 2),
    ] {
        // One thread, a fixed number of events: both issue exactly the same statements.
        let run = [
            "--threads=1".to_string(),
            format!("--events={EVENTS}"),
            "--time=0".into(),
        ];
        s.reset();
        let sb_out = Command::new("sysbench")
            .arg(workload)
            .args(s.options(tables))
            .arg(format!("--pgsql-password={password}"))
            .args(&run)
            .arg("run")
            .output()
            .unwrap();
        assert!(
            sb_out.status.success(),
            "sysbench {workload}: {}",
            text(&sb_out)
        );
        let (sb_calls, sb_x) = s.counts();

        s.reset();
        let ps_out = psbench(std::path::Path::new("/nonexistent"))
            .args(["bench", workload, "run"])
            .args(s.options(tables))
            .args(&run)
            // sysbench 1.0.20's default distribution (psbench's default is uniform).
            .arg("--rand-type=special")
            .env("PSBENCH_PGSQL_PASSWORD", &password)
            .output()
            .unwrap();
        assert!(
            ps_out.status.success(),
            "psbench {workload}: {}",
            text(&ps_out)
        );
        let (ps_calls, ps_x) = s.counts();

        let sb_text = String::from_utf8_lossy(&sb_out.stdout);
        let ps_text = String::from_utf8_lossy(&ps_out.stdout);
        // oltp_delete deletes without putting back: the second client finds fewer rows, so
        // fewer of its deletes change one (a write) and more change none (other).
        let deletes_only = workload == "oltp_delete";
        let (ps_rwo, sb_rwo) = (rwo(&ps_text), rwo(&sb_text));
        if deletes_only {
            assert_eq!(ps_rwo[0], sb_rwo[0], "{workload}: reads");
            assert_eq!(
                ps_rwo[1] + ps_rwo[2],
                sb_rwo[1] + sb_rwo[2],
                "{workload}: writes+other"
            );
        } else {
            assert_eq!(ps_rwo, sb_rwo, "{workload}: read/write/other");
        }
        let shapes = |m: &BTreeMap<String, (u64, u64)>| -> Vec<(String, u64)> {
            m.iter().map(|(k, v)| (k.clone(), v.0)).collect()
        };
        assert_eq!(
            shapes(&ps_calls),
            shapes(&sb_calls),
            "{workload}: calls per statement"
        );
        for (shape, (calls, rows)) in sb_calls.iter().filter(|_| !deletes_only) {
            let ps_rows = ps_calls[shape].1 as f64;
            let sb_rows = *rows as f64;
            // Point selects and changes return exactly one row each; ranges may run past
            // the table's end, so their rows differ with the draws.
            assert!(
                (ps_rows - sb_rows).abs() <= 0.03 * sb_rows.max(1.0),
                "{workload}: `{shape}` ({calls} calls): {ps_rows} rows against sysbench's {sb_rows}"
            );
        }
        // Every event commits once, nothing is rolled back. The database also counts the
        // monitoring's own statements and each statement prepared outside a transaction
        // (the same for both clients).
        for (who, (commits, rollbacks)) in [("sysbench", sb_x), ("psbench", ps_x)] {
            assert!(
                commits >= EVENTS,
                "{workload}: {who} committed {commits} for {EVENTS} events"
            );
            assert_eq!(rollbacks, 0, "{workload}: {who} rolled back");
        }
        assert!(
            ps_x.0.abs_diff(sb_x.0) <= 5,
            "{workload}: commits: psbench {} against sysbench {}",
            ps_x.0,
            sb_x.0
        );
    }
}

#[test]
fn prepare_builds_what_sysbench_pgsql_prepare_builds() {
    let s = Server::start();
    let password = s.sb.password().to_string();
    // sysbench's pgsql driver needs the database to exist; psbench creates its own.
    s.rows("postgres", "CREATE DATABASE sbref");
    let mut sb_opts = s.options(1);
    sb_opts.retain(|o| !o.starts_with("--pgsql-db"));
    let sb_out = Command::new("sysbench")
        .arg("oltp_read_write")
        .args(&sb_opts)
        .arg("--pgsql-db=sbref")
        .arg(format!("--pgsql-password={password}"))
        .arg("prepare")
        .output()
        .unwrap();
    assert!(sb_out.status.success(), "{}", text(&sb_out));
    let ps_out = psbench(std::path::Path::new("/nonexistent"))
        .args(["bench", "oltp_read_write", "prepare"])
        .args(s.options(1))
        .env("PSBENCH_PGSQL_PASSWORD", &password)
        .output()
        .unwrap();
    assert!(ps_out.status.success(), "{}", text(&ps_out));
    for q in [
        "SELECT column_name, data_type, character_maximum_length, column_default, is_nullable \
         FROM information_schema.columns WHERE table_name = 'sbtest1' ORDER BY ordinal_position",
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'sbtest1' ORDER BY 1",
        "SELECT count(*), min(id), max(id), min(length(c)), max(length(pad)), \
         min(k) >= 1 AND max(k) <= 2000 FROM sbtest1",
        "SELECT last_value FROM sbtest1_id_seq",
    ] {
        let (ps, sb) = (s.rows("sbtest", q), s.rows("sbref", q));
        assert_eq!(ps, sb, "{q}");
        assert!(!ps.is_empty(), "{q}");
    }
    assert_eq!(
        s.rows("sbtest", "SELECT count(*) FROM sbtest1")[0][0],
        TABLE_SIZE
    );
}
