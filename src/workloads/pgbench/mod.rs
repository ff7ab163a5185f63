//! pgbench's built-in scripts (tpcb-like, simple-update, select-only) on PostgreSQL, with
//! pgbench's tables and data (docs/postgres.md#pgbench): the same statements per
//! transaction as PostgreSQL 15's pgbench, in its simple (text) or prepared query mode.

pub mod init;
pub mod script;

use crate::connection::{Dialect, Endpoint, Session};
use crate::error::usage;
use crate::workloads::random::Rng;
use crate::workloads::{Worker, Workload};
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use script::{PgbenchWorker, Script};
use serde::{Deserialize, Serialize};

pub const PGBENCH_WORKLOADS: &[&str] = &[
    "pgbench_tpcb_like",
    "pgbench_simple_update",
    "pgbench_select_only",
];

/// Worker streams, apart from any other workload's.
const WORKER_STREAM_BASE: u64 = 2 << 40;

/// pgbench's `-M`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryMode {
    /// Each statement as text with its values in it (pgbench's default).
    Simple,
    /// Named prepared statements, parameters bound at each execution.
    Prepared,
}

/// pgbench's options that shape its data and its statements.
#[derive(Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PgbenchOptions {
    /// pgbench -s: branches at `prepare` (10 tellers and 100,000 accounts each); `run`
    /// reads the scale from the tables, as pgbench does.
    #[arg(long, default_value_t = 1, help_heading = "pgbench")]
    pub scale: u32,
    /// pgbench -M: how statements are sent.
    #[arg(long, value_enum, default_value = "simple", help_heading = "pgbench")]
    pub query_mode: QueryMode,
}

impl Default for PgbenchOptions {
    fn default() -> Self {
        PgbenchOptions {
            scale: 1,
            query_mode: QueryMode::Simple,
        }
    }
}

/// One of pgbench's built-in scripts.
#[derive(Debug)]
pub struct PgbenchWorkload {
    name: &'static str,
    script: Script,
    opts: PgbenchOptions,
}

/// True for the names of pgbench's scripts.
pub fn is_pgbench(name: &str) -> bool {
    PGBENCH_WORKLOADS.contains(&name)
}

pub fn pgbench_workload(name: &str, opts: &PgbenchOptions) -> Result<Box<dyn Workload>> {
    let Some(&name) = PGBENCH_WORKLOADS.iter().find(|&&n| n == name) else {
        return Err(usage(format!(
            "unknown workload '{name}'; pgbench's are {}",
            PGBENCH_WORKLOADS.join(", ")
        )));
    };
    if opts.scale == 0 {
        return Err(usage("--scale must be at least 1"));
    }
    let script = match name {
        "pgbench_tpcb_like" => Script::TpcbLike,
        "pgbench_simple_update" => Script::SimpleUpdate,
        _ => Script::SelectOnly,
    };
    Ok(Box::new(PgbenchWorkload {
        name,
        script,
        opts: opts.clone(),
    }))
}

/// pgbench's scripts run on PostgreSQL only: checked before anything connects.
pub fn postgres_only(name: &str, endpoint: &Endpoint) -> Result<()> {
    refuse_unless(name, endpoint.dialect())
}

fn refuse_unless(name: &str, dialect: Dialect) -> Result<()> {
    if !dialect.supports_pgbench() {
        return Err(usage(format!(
            "{name} is pgbench's and runs on PostgreSQL only (--db-driver=pgsql)"
        )));
    }
    Ok(())
}

impl Workload for PgbenchWorkload {
    fn name(&self) -> &str {
        self.name
    }

    fn prepare(&self, endpoint: &Endpoint, _threads: usize, _seed: u64) -> Result<()> {
        postgres_only(self.name, endpoint)?;
        init::prepare(endpoint, self.opts.scale)
    }

    fn cleanup(&self, endpoint: &Endpoint) -> Result<()> {
        postgres_only(self.name, endpoint)?;
        init::cleanup(endpoint)
    }

    fn worker(
        &self,
        thread: usize,
        _threads: usize,
        seed: u64,
        conn: &mut Session,
    ) -> Result<Box<dyn Worker>> {
        refuse_unless(self.name, conn.dialect())?;
        // As pgbench: the scale is what the tables hold.
        let scale = init::scale_of(conn).context("reading the scale from pgbench_branches")?;
        let rng = Rng::for_stream(seed, WORKER_STREAM_BASE + thread as u64);
        let prepared = self.opts.query_mode == QueryMode::Prepared;
        Ok(Box::new(PgbenchWorker::new(
            conn,
            self.script,
            scale,
            prepared,
            rng,
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_scale_are_checked() {
        for n in PGBENCH_WORKLOADS {
            assert_eq!(
                pgbench_workload(n, &PgbenchOptions::default())
                    .unwrap()
                    .name(),
                *n
            );
        }
        let e = pgbench_workload("pgbench_tpcb", &PgbenchOptions::default())
            .err()
            .unwrap();
        assert!(crate::error::is_usage(&e) && e.to_string().contains("pgbench_tpcb_like"));
        let zero = PgbenchOptions {
            scale: 0,
            ..Default::default()
        };
        assert!(pgbench_workload("pgbench_select_only", &zero).is_err());
        let mysql = Endpoint::tcp("127.0.0.1", 3306, "root");
        let e = pgbench_workload("pgbench_select_only", &PgbenchOptions::default())
            .unwrap()
            .prepare(&mysql, 1, 1)
            .unwrap_err();
        assert!(crate::error::is_usage(&e) && e.to_string().contains("PostgreSQL only"));
    }
}
