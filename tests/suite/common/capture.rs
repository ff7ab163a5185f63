//! A capture as a user takes one on MariaDB: the dump first, then the general log on for
//! Debian's sysbench oltp_read_write (2 threads, its prepared statements) and off again,
//! with the statement counters' moves during it.

use super::sysbench::Server;
use super::text;
use mysql::prelude::Queryable;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const COUNTERS: [&str; 6] = [
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Com_begin",
    "Com_commit",
];

pub fn deltas(before: &HashMap<String, i64>, after: &HashMap<String, i64>) -> Vec<(String, i64)> {
    COUNTERS
        .iter()
        .map(|k| (k.to_string(), after[*k] - before[*k]))
        .collect()
}

/// A client of the server's own (mariadb, mariadb-dump) logged in as root.
pub fn client(s: &Server, program: &str) -> Command {
    let sb = s.sandbox();
    let mut c = Command::new(program);
    c.args(["-h", "127.0.0.1", "-u", "root"])
        .arg(format!("-P{}", sb.port()))
        .env("MYSQL_PWD", sb.password());
    c
}

pub struct Capture {
    pub dump: PathBuf,
    pub log: PathBuf,
    /// The counters' moves while the log was on.
    pub counters: Vec<(String, i64)>,
}

/// Tables of `rows` rows in `sbtest`, dumped into `dir`, then `seconds` of sysbench logged;
/// the log is copied into `dir`.
pub fn capture(s: &Server, dir: &Path, rows: u32, seconds: u32) -> Capture {
    s.admin().query_drop("CREATE DATABASE sbtest").unwrap();
    let size = ["--tables=2".to_string(), format!("--table-size={rows}")];
    s.sysbench("oltp_read_write", "sbtest", &size, "prepare");
    let dump = dir.join("sbtest.sql");
    let out = client(s, "mariadb-dump")
        .args(["--single-transaction", "sbtest"])
        .output()
        .unwrap();
    assert!(out.status.success(), "mariadb-dump: {}", text(&out));
    std::fs::write(&dump, &out.stdout).unwrap();
    // In the datadir, which the server's account may write.
    let mut admin = s.admin();
    admin
        .query_drop("SET GLOBAL general_log_file = 'capture.log'")
        .unwrap();
    let before = s.status();
    admin.query_drop("SET GLOBAL general_log = ON").unwrap();
    let mut run = size.to_vec();
    run.extend(["--threads=2".into(), format!("--time={seconds}")]);
    s.sysbench("oltp_read_write", "sbtest", &run, "run");
    admin.query_drop("SET GLOBAL general_log = OFF").unwrap();
    let counters = deltas(&before, &s.status());
    assert!(counters[0].1 > 1000, "the capture ran: {counters:?}");
    let log = dir.join("capture.log");
    std::fs::copy(s.sandbox().state().datadir.join("capture.log"), &log).unwrap();
    Capture {
        dump,
        log,
        counters,
    }
}
