//! The sysbench comparison's server: a MariaDB sandbox that the installed sysbench 1.0.20
//! and psbench's workloads both run against, and what its tests read back from it.

use mysql::prelude::Queryable;
use psbench::connection::Endpoint;
use psbench::server::{Home, Sandbox, SandboxSpec};
use psbench::workloads::sysbench::{OltpOptions, RandType};
use psbench::workloads::EventError;
use std::collections::HashMap;
use std::process::Command;

/// The seed psbench's runs start from.
pub const SEED: u64 = 20_200_424;

/// A sandbox with its scratch directory (kept short for the unix socket path).
pub struct Server {
    /// Status snapshots reuse one connection: connecting runs a SELECT of its own.
    monitor: std::cell::RefCell<mysql::Conn>,
    sb: Sandbox,
    _dir: tempfile::TempDir,
}

impl Server {
    pub fn start(name: &str) -> Server {
        let dir = super::tempdir_builder()
            .prefix("psw")
            .tempdir_in("/tmp")
            .unwrap();
        let sb = psbench::engines::start(SandboxSpec::new(name, Home::new(dir.path())))
            .expect("starting a sandbox of the system mariadbd");
        let monitor = std::cell::RefCell::new(sb.admin_endpoint().connect().unwrap());
        Server {
            monitor,
            sb,
            _dir: dir,
        }
    }

    pub fn ep(&self, db: &str) -> Endpoint {
        self.sb.tcp_endpoint().with_database(Some(db))
    }

    pub fn sandbox(&self) -> &Sandbox {
        &self.sb
    }

    pub fn admin(&self) -> mysql::Conn {
        self.sb.admin_endpoint().connect().unwrap()
    }

    pub fn status(&self) -> HashMap<String, i64> {
        self.monitor
            .borrow_mut()
            .query_map("SHOW GLOBAL STATUS", |(k, v): (String, String)| (k, v))
            .unwrap()
            .into_iter()
            .filter_map(|(k, v)| v.parse().ok().map(|v| (k, v)))
            .collect()
    }

    /// Run the installed sysbench 1.0.20 against this server and return its stdout.
    pub fn sysbench(&self, script: &str, db: &str, args: &[String], command: &str) -> String {
        let out = Command::new("sysbench")
            .arg(script)
            .args([
                "--db-driver=mysql",
                "--mysql-host=127.0.0.1",
                &format!("--mysql-port={}", self.sb.port()),
                "--mysql-user=root",
                &format!("--mysql-password={}", self.sb.password()),
                &format!("--mysql-db={db}"),
            ])
            .args(args)
            .arg(command)
            .output()
            .expect("running sysbench (is sysbench 1.0.20 installed?)");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "sysbench {script} {command} failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }
}

/// An event's error as text, for assertion messages.
pub fn describe(e: EventError) -> String {
    match e {
        EventError::Retryable { code, message } => format!("retryable {code}: {message}"),
        EventError::ConnectionLost(m) => format!("connection lost: {m}"),
        EventError::Failed(m) => format!("failed: {m}"),
        EventError::Fatal(e) => format!("fatal: {e:#}"),
    }
}

/// The `--rand-type=special` (sysbench's default) dataset both tools run against.
pub fn special_opts() -> OltpOptions {
    OltpOptions {
        table_size: 10_000,
        rand_type: RandType::Special,
        ..Default::default()
    }
}

/// The first column of the first row of `sql`, as text.
pub fn one_value(conn: &mut mysql::Conn, sql: &str) -> String {
    let v: Option<mysql::Value> = conn.query_first(sql).unwrap();
    match v.unwrap_or_else(|| panic!("no row for {sql}")) {
        mysql::Value::Bytes(b) => String::from_utf8(b).unwrap(),
        mysql::Value::Int(i) => i.to_string(),
        mysql::Value::UInt(u) => u.to_string(),
        other => format!("{other:?}"),
    }
}

/// CHECKSUM TABLE of table sbtest{table} in database `db`.
pub fn checksum(conn: &mut mysql::Conn, db: &str, table: u32) -> String {
    let row: (String, Option<u64>) = conn
        .query_first(format!("CHECKSUM TABLE `{db}`.sbtest{table}"))
        .unwrap()
        .unwrap();
    row.1.expect("a checksum").to_string()
}
