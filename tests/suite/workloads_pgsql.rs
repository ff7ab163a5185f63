//! The sysbench OLTP workloads on PostgreSQL, with the installed sysbench 1.0.20's pgsql
//! driver as the reference on the same sandbox: statements per transaction by type (from
//! pg_stat_statements' calls), rows they returned, commits and rollbacks (pg_stat_database),
//! and the client's read/write/other counts.

use crate::common;

use common::pg::{calls, PgServer};
use common::{psbench, text};
use std::process::Command;

const EVENTS: u64 = 400;
const TABLE_SIZE: &str = "2000";

/// Connection options for both clients, on `tables` of the prepared tables.
fn options(s: &PgServer, tables: u32) -> Vec<String> {
    vec![
        "--db-driver=pgsql".into(),
        "--pgsql-host=127.0.0.1".into(),
        format!("--pgsql-port={}", s.sb.port()),
        "--pgsql-user=postgres".into(),
        "--pgsql-db=sbtest".into(),
        format!("--tables={tables}"),
        format!("--table-size={TABLE_SIZE}"),
    ]
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
    let s = PgServer::start();
    let password = s.sb.password().to_string();
    let prep = psbench(std::path::Path::new("/nonexistent"))
        .args(["bench", "oltp_read_write", "prepare"])
        .args(options(&s, 2))
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
        s.reset("sbtest");
        let sb_out = Command::new("sysbench")
            .arg(workload)
            .args(options(&s, tables))
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
        let (sb_calls, sb_x) = s.counts("sbtest", &[]);

        s.reset("sbtest");
        let ps_out = psbench(std::path::Path::new("/nonexistent"))
            .args(["bench", workload, "run"])
            .args(options(&s, tables))
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
        let (ps_calls, ps_x) = s.counts("sbtest", &[]);

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
        assert_eq!(
            calls(&ps_calls),
            calls(&sb_calls),
            "{workload}: calls per statement"
        );
        for (shape, (n, rows)) in sb_calls.iter().filter(|_| !deletes_only) {
            let ps_rows = ps_calls[shape].1 as f64;
            let sb_rows = *rows as f64;
            // Point selects and changes return exactly one row each; ranges may run past
            // the table's end, so their rows differ with the draws. A `k IN (…)` list returns
            // every row holding each drawn k, and with sysbench's special distribution the
            // hot values are held by tens of rows: its total over 4,000 draws varies more
            // (two runs 3.6% apart, CI 2026-11-27: about 17 rows per drawn value), while
            // uniform draws would find about one row per value.
            let tolerance = if shape.contains("k IN") { 0.10 } else { 0.03 };
            assert!(
                (ps_rows - sb_rows).abs() <= tolerance * sb_rows.max(1.0),
                "{workload}: `{shape}` ({n} calls): {ps_rows} rows against sysbench's {sb_rows}"
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
    let s = PgServer::start();
    let password = s.sb.password().to_string();
    // sysbench's pgsql driver needs the database to exist; psbench creates its own.
    s.rows("postgres", "CREATE DATABASE sbref");
    let mut sb_opts = options(&s, 1);
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
        .args(options(&s, 1))
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

#[test]
fn a_pgsql_password_on_the_command_line_leaves_the_process_title_and_results() {
    let s = PgServer::start();
    let pw = s.sb.password().to_string();
    let dir = common::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let prep = psbench(std::path::Path::new("/nonexistent"))
        .args(["bench", "oltp_point_select", "prepare"])
        .args(options(&s, 1))
        .arg(format!("--pgsql-password={pw}"))
        .output()
        .unwrap();
    assert!(prep.status.success(), "{}", text(&prep));
    let mut child = psbench(std::path::Path::new("/nonexistent"))
        .args(["bench", "oltp_point_select", "run", "--time=3"])
        .args(options(&s, 1))
        .args(["--pgsql-password", &pw])
        .arg(format!("--json={}", json.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let title =
        String::from_utf8_lossy(&std::fs::read(format!("/proc/{}/cmdline", child.id())).unwrap())
            .replace('\0', " ");
    assert!(title.contains("oltp_point_select"), "not running: {title}");
    assert!(
        !title.contains(&pw),
        "password in the process title: {title}"
    );
    assert!(child.wait().unwrap().success());
    let recorded = std::fs::read_to_string(&json).unwrap();
    assert!(recorded.contains("oltp_point_select"), "{recorded}");
    assert!(!recorded.contains(&pw), "password in the results");
}
