//! A PostgreSQL sandbox with pg_stat_statements for the workload compatibility tests, and
//! what they read from it.

use psbench::connection::PgEndpoint;
use psbench::server::{Home, Sandbox, SandboxSpec};
use std::collections::BTreeMap;

pub struct PgServer {
    pub sb: Sandbox,
    _home: tempfile::TempDir,
}

impl PgServer {
    /// pg_stat_statements on, autovacuum off (its transactions would count in
    /// pg_stat_database at random moments).
    pub fn start() -> PgServer {
        let home = super::tempdir_builder()
            .prefix("pgw")
            .tempdir_in("/tmp")
            .unwrap();
        let mut spec = SandboxSpec::new("w", Home::new(home.path()));
        spec.family = Some(psbench::results::Family::Postgres);
        for o in [
            "shared_preload_libraries=pg_stat_statements",
            "pg_stat_statements.track=all",
            "autovacuum=off",
        ] {
            spec = spec.option(o).unwrap();
        }
        let sb = psbench::engines::start(spec).unwrap();
        PgServer { sb, _home: home }
    }

    /// A client of the server's (pgbench, psql, pg_dump) run to success as postgres.
    pub fn tool(&self, program: &str, args: &[&str]) -> std::process::Output {
        let out = std::process::Command::new(program)
            .args(["-h", "127.0.0.1", "-U", "postgres", "-p"])
            .arg(self.sb.port().to_string())
            .args(args)
            .env("PGPASSWORD", self.sb.password())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{program} {args:?}: {}",
            super::text(&out)
        );
        out
    }

    /// `psbench bench`'s options reaching database `db` as postgres (its password in
    /// PSBENCH_PGSQL_PASSWORD).
    pub fn psbench_args(&self, db: &str) -> Vec<String> {
        vec![
            "--db-driver=pgsql".into(),
            "--pgsql-host=127.0.0.1".into(),
            format!("--pgsql-port={}", self.sb.port()),
            "--pgsql-user=postgres".into(),
            format!("--pgsql-db={db}"),
        ]
    }

    pub fn admin(&self, db: &str) -> PgEndpoint {
        self.sb.state().pg_admin_endpoint().with_database(db)
    }

    /// A query's rows as text (NULL as "").
    pub fn rows(&self, db: &str, sql: &str) -> Vec<Vec<String>> {
        self.admin(db)
            .connect()
            .unwrap()
            .query(sql)
            .unwrap()
            .into_iter()
            .map(|r| r.into_iter().map(Option::unwrap_or_default).collect())
            .collect()
    }

    /// Wait until no other session is connected to `db` (at most 20 s): a backend still
    /// exiting would report its transactions after a reset, or after a count.
    fn quiet(&self, db: &str) {
        let q = format!(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = '{db}' AND pid <> pg_backend_pid()"
        );
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while self.rows("postgres", &q)[0][0] != "0" && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// Forget the statements and the database counters so far.
    pub fn reset(&self, db: &str) {
        self.quiet(db);
        self.rows(db, "SELECT pg_stat_statements_reset()");
        // That session's commit reaches the counters as its backend exits, which on a loaded
        // host can come after the reset below: wait for it, or a count is one commit off.
        self.quiet(db);
        self.rows(db, "SELECT pg_stat_reset()");
    }

    /// Calls and rows per statement shape of database `db` since the last reset (table
    /// numbers folded: sbtestN → sbtest; statements matching any of `skip` left out), and
    /// the database's commits and rollbacks.
    pub fn counts(&self, db: &str, skip: &[&str]) -> (BTreeMap<String, (u64, u64)>, (u64, u64)) {
        let mut shapes = BTreeMap::new();
        let q = format!(
            "SELECT query, calls, rows FROM pg_stat_statements \
             WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '{db}') \
             AND query NOT LIKE '%pg_stat%'"
        );
        for r in self.rows(db, &q) {
            if skip.iter().any(|s| r[0].contains(s)) {
                continue;
            }
            let e = shapes.entry(fold_tables(&r[0])).or_insert((0, 0));
            e.0 += r[1].parse::<u64>().unwrap();
            e.1 += r[2].parse::<u64>().unwrap();
        }
        // A backend reports its transactions when it ends: once every session has left the
        // database, read until two readings 300 ms apart agree (from database postgres, so
        // that the reading adds nothing).
        self.quiet(db);
        let q = format!(
            "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = '{db}'"
        );
        let mut x = self.rows("postgres", &q)[0].clone();
        for _ in 0..30 {
            std::thread::sleep(std::time::Duration::from_millis(300));
            let again = self.rows("postgres", &q)[0].clone();
            if again == x {
                break;
            }
            x = again;
        }
        (shapes, (x[0].parse().unwrap(), x[1].parse().unwrap()))
    }
}

pub fn fold_tables(query: &str) -> String {
    let mut out = String::new();
    let mut rest = query;
    while let Some(i) = rest.find("sbtest") {
        out.push_str(&rest[..i + 6]);
        rest = rest[i + 6..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// Calls per shape, for comparing two clients.
pub fn calls(m: &BTreeMap<String, (u64, u64)>) -> Vec<(String, u64)> {
    m.iter().map(|(k, v)| (k.clone(), v.0)).collect()
}
