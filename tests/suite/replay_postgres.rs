//! A `log_statement = 'all'` log of Debian's pgbench 15 (2 clients, 5 s, the TPC-B-like
//! script) replayed by `psbench bench replay` on a PostgreSQL sandbox, on the data as the
//! dump taken at the capture's start made it: the same commits and the same calls per
//! statement in pg_stat_statements, at either pace.

use crate::common;

use common::pg::{calls, PgServer};
use common::{psbench, text};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

fn restore(s: &PgServer, dump: &Path) {
    s.rows("postgres", "DROP DATABASE IF EXISTS bench");
    s.rows("postgres", "CREATE DATABASE bench");
    let file = dump.to_str().unwrap();
    s.tool(
        "psql",
        &["-q", "-v", "ON_ERROR_STOP=1", "-f", file, "bench"],
    );
}

fn replay(s: &PgServer, log: &Path, pace: &[&str]) -> String {
    let out = psbench(Path::new("/nonexistent"))
        .args(["bench", "replay"])
        .arg(log)
        .args(pace)
        .args(s.psbench_args("bench"))
        .env("PSBENCH_PGSQL_PASSWORD", s.sb.password())
        .output()
        .unwrap();
    assert!(out.status.success(), "replay {pace:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What the server's log gained since `from` bytes.
fn log_since(s: &PgServer, from: u64) -> String {
    let mut f = std::fs::File::open(s.sb.error_log()).unwrap();
    f.seek(SeekFrom::Start(from)).unwrap();
    let mut text = String::new();
    f.read_to_string(&mut text).unwrap();
    text
}

#[test]
fn a_pgbench_capture_replayed_commits_and_calls_as_the_capture_did() {
    let s = PgServer::start();
    let dir = common::tempdir().unwrap();
    s.rows("postgres", "CREATE DATABASE bench");
    // In the dump, so that every copy made from it has it.
    s.rows("bench", "CREATE EXTENSION pg_stat_statements");
    s.tool("pgbench", &["-i", "-q", "-s", "2", "bench"]);
    let dump = dir.path().join("bench.sql");
    s.tool("pg_dump", &["-f", dump.to_str().unwrap(), "bench"]);

    // The capture: every statement of the database's new sessions logged during the run.
    let skip = ["pg_catalog", "pg_stat_statements"];
    // The test's own readings are not logged: the setting is on for pgbench's sessions only.
    s.reset("bench");
    s.rows("postgres", "ALTER DATABASE bench SET log_statement = 'all'");
    let from = std::fs::metadata(s.sb.error_log()).unwrap().len();
    s.tool("pgbench", &["-c", "2", "-j", "2", "-T", "5", "bench"]);
    s.rows("postgres", "ALTER DATABASE bench RESET log_statement");
    let (theirs, (commits, _)) = s.counts("bench", &skip);
    let log = dir.path().join("capture.log");
    std::fs::write(&log, log_since(&s, from)).unwrap();
    assert!(commits > 500, "the capture ran: {commits} commits");

    for pace in [&["--pace", "fast"][..], &["--pace", "recorded"]] {
        restore(&s, &dump);
        s.reset("bench");
        let shown = replay(&s, &log, pace);
        let (mine, (replayed_commits, _)) = s.counts("bench", &skip);
        assert_eq!(calls(&mine), calls(&theirs), "{pace:?}:\n{shown}");
        // Every connection commits one transaction as it starts, and psbench opens one
        // more than the capture did: the one that asks the server's version.
        assert_eq!(replayed_commits, commits + 1, "{pace:?}:\n{shown}");
        assert!(shown.contains("PostgreSQL stderr log"), "{shown}");
        println!("{pace:?}: {commits} commits\n{shown}");
    }
}
