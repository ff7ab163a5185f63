//! A general log captured from Debian's sysbench oltp_read_write (2 threads, 10 s, its
//! prepared statements) on a MariaDB sandbox, replayed by `psbench bench replay` on the data
//! as it was when the capture began (the dump taken then): the server's statement counters
//! move as they moved during the capture, at either pace.

use crate::common;

use common::sysbench::Server;
use common::{psbench, text};
use mysql::prelude::Queryable;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

const COUNTERS: [&str; 6] = [
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Com_begin",
    "Com_commit",
];

fn deltas(before: &HashMap<String, i64>, after: &HashMap<String, i64>) -> Vec<(String, i64)> {
    COUNTERS
        .iter()
        .map(|k| (k.to_string(), after[*k] - before[*k]))
        .collect()
}

fn client(s: &Server, program: &str) -> Command {
    let sb = s.sandbox();
    let mut c = Command::new(program);
    c.args(["-h", "127.0.0.1", "-u", "root"])
        .arg(format!("-P{}", sb.port()))
        .env("MYSQL_PWD", sb.password());
    c
}

/// The database `sbtest` as the dump made it.
fn restore(s: &Server, dump: &Path) {
    s.admin()
        .query_drop("DROP DATABASE IF EXISTS sbtest")
        .unwrap();
    s.admin().query_drop("CREATE DATABASE sbtest").unwrap();
    let out = client(s, "mariadb")
        .arg("sbtest")
        .stdin(std::fs::File::open(dump).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "loading the dump: {}", text(&out));
}

fn replay(s: &Server, log: &Path, pace: &[&str]) -> String {
    let sb = s.sandbox();
    let out = psbench(Path::new("/nonexistent"))
        .args(["bench", "replay"])
        .arg(log)
        .args(pace)
        .args([
            "--mysql-host=127.0.0.1",
            &format!("--mysql-port={}", sb.port()),
            "--mysql-user=root",
            "--mysql-db=sbtest",
        ])
        .env("PSBENCH_MYSQL_PASSWORD", sb.password())
        .output()
        .unwrap();
    assert!(out.status.success(), "replay {pace:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_sysbench_capture_replayed_moves_the_statement_counters_as_the_capture_did() {
    let s = Server::start("replay");
    let dir = common::tempdir().unwrap();
    s.admin().query_drop("CREATE DATABASE sbtest").unwrap();
    let size = ["--tables=2".to_string(), "--table-size=5000".to_string()];
    s.sysbench("oltp_read_write", "sbtest", &size, "prepare");

    // The capture: the dump, then the log on for sysbench's run only.
    let dump = dir.path().join("sbtest.sql");
    let out = client(&s, "mariadb-dump")
        .args(["--single-transaction", "sbtest"])
        .output()
        .unwrap();
    assert!(out.status.success(), "mariadb-dump: {}", text(&out));
    std::fs::write(&dump, &out.stdout).unwrap();
    // In the datadir, which the server's account may write.
    let log = s.sandbox().state().datadir.join("capture.log");
    let mut admin = s.admin();
    admin
        .query_drop("SET GLOBAL general_log_file = 'capture.log'")
        .unwrap();
    let before = s.status();
    admin.query_drop("SET GLOBAL general_log = ON").unwrap();
    let mut run = size.to_vec();
    run.extend(["--threads=2".into(), "--time=10".into()]);
    s.sysbench("oltp_read_write", "sbtest", &run, "run");
    admin.query_drop("SET GLOBAL general_log = OFF").unwrap();
    let captured = deltas(&before, &s.status());
    assert!(captured[0].1 > 1000, "the capture ran: {captured:?}");

    for pace in [&["--pace", "fast"][..], &["--pace", "recorded"]] {
        restore(&s, &dump);
        let before = s.status();
        let shown = replay(&s, &log, pace);
        let replayed = deltas(&before, &s.status());
        assert_eq!(replayed, captured, "{pace:?}:\n{shown}");
        // sysbench's two connections, and the one that turned the log off.
        assert!(
            shown.contains("MySQL/MariaDB general query log, 3 session(s)"),
            "{shown}"
        );
        println!("{pace:?}, captured {captured:?}\n{shown}");
    }
}
