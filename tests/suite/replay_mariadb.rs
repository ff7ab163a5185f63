//! A general log captured from Debian's sysbench oltp_read_write (2 threads, 10 s, its
//! prepared statements) on a MariaDB sandbox, replayed by `psbench bench replay` on the data
//! as it was when the capture began (the dump taken then): the server's statement counters
//! move as they moved during the capture, at either pace.

use crate::common;

use common::capture::{capture, client, deltas};
use common::sysbench::Server;
use common::{psbench, text};
use mysql::prelude::Queryable;
use std::path::Path;

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
    let cap = capture(&s, dir.path(), 5000, 10);
    for pace in [&["--pace", "fast"][..], &["--pace", "recorded"]] {
        restore(&s, &cap.dump);
        let before = s.status();
        let shown = replay(&s, &cap.log, pace);
        let replayed = deltas(&before, &s.status());
        assert_eq!(replayed, cap.counters, "{pace:?}:\n{shown}");
        // sysbench's two connections, and the one that turned the log off.
        assert!(
            shown.contains("MySQL/MariaDB general query log, 3 session(s)"),
            "{shown}"
        );
        println!("{pace:?}, captured {:?}\n{shown}", cap.counters);
    }
}
