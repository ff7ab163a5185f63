//! Stage 2a: workloads. What one transaction ("event", as sysbench calls it) does, how a
//! dataset is prepared and cleaned up. The driver (stage 2b) owns threads, timing and
//! schedules; a workload only issues statements on the connection it is given.

pub mod custom;
pub mod errors;
pub mod ibench;
pub mod kinds;
pub mod pgbench;
pub mod random;
pub mod replay;
pub mod script;
pub mod sysbench;

pub use errors::classify_error;
pub use sysbench::{sysbench_workload, OltpOptions, SYSBENCH_WORKLOADS};

/// A sysbench or pgbench workload by name, with its options; an unknown name is a usage
/// error listing every valid one.
pub fn workload_by_name(
    name: &str,
    oltp: &OltpOptions,
    pgbench_opts: &pgbench::PgbenchOptions,
) -> Result<Box<dyn Workload>> {
    if pgbench::is_pgbench(name) {
        return pgbench::pgbench_workload(name, pgbench_opts);
    }
    if !SYSBENCH_WORKLOADS.contains(&name) {
        return Err(crate::error::usage(format!(
            "unknown workload '{name}'{} (valid workloads: {}, {})",
            crate::error::suggestion(
                name,
                SYSBENCH_WORKLOADS
                    .iter()
                    .chain(pgbench::PGBENCH_WORKLOADS)
                    .copied()
            ),
            SYSBENCH_WORKLOADS.join(", "),
            pgbench::PGBENCH_WORKLOADS.join(", ")
        )));
    }
    sysbench_workload(name, oltp)
}

/// `psbench bench NAME`'s workload, sysbench's or pgbench's, refused before anything
/// connects where the server cannot run it; with its options as the bench document records
/// them.
pub fn bench_workload(
    name: &str,
    oltp: &OltpOptions,
    pgbench_opts: &pgbench::PgbenchOptions,
    endpoint: &Endpoint,
) -> Result<(Box<dyn Workload>, serde_json::Value)> {
    let workload = workload_by_name(name, oltp, pgbench_opts)?;
    let options = if pgbench::is_pgbench(name) {
        pgbench::postgres_only(name, endpoint)?;
        serde_json::to_value(pgbench_opts)
    } else {
        serde_json::to_value(oltp)
    };
    Ok((workload, options?))
}

/// `psbench bench`'s help on its WORKLOAD.
pub fn bench_workloads_help() -> String {
    format!(
        "The workload: {}; on PostgreSQL also pgbench's {}",
        SYSBENCH_WORKLOADS.join(", "),
        pgbench::PGBENCH_WORKLOADS.join(", ")
    )
}

use crate::connection::Endpoint;
use crate::connection::Session;
use anyhow::Result;
use std::time::Duration;

/// Per-thread query counters, classified as sysbench does (docs/sysbench-compat.md#read-write-other):
/// read = returned a result set; write = no result set and affected rows > 0;
/// other = no result set and 0 rows affected (BEGIN, COMMIT, a DELETE of a missing row).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryCounters {
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
}

impl QueryCounters {
    pub fn total(&self) -> u64 {
        self.reads + self.writes + self.other
    }
    pub fn add(&mut self, o: &QueryCounters) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.other += o.other;
    }
}

/// How one transaction failed.
#[derive(Debug)]
pub enum EventError {
    /// Deadlock (1213), lock-wait timeout (1205), record changed (1020); PostgreSQL's
    /// deadlock, unique violation, serialization failure: the driver counts it (rolling back
    /// on PostgreSQL) and re-runs the whole event with new draws (the latency clock keeps
    /// running).
    /// `code`: MySQL's error number or PostgreSQL's SQLSTATE.
    Retryable { code: String, message: String },
    /// The connection was lost (2006, 2013, io errors): the driver reconnects, counts a
    /// reconnect, calls [`Worker::reconnected`] and re-runs the event.
    ConnectionLost(String),
    /// The transaction failed and is not run again: the driver counts it under the cell's
    /// errors (rolling back on PostgreSQL), not as a transaction, and goes on with the next.
    /// A script's run-time failure (division by zero, `\gset` given no row…), its words.
    Failed(String),
    /// Anything else ends the run; the message names the statement and the server's error.
    Fatal(anyhow::Error),
}

/// One connection's worth of workload state (prepared statements, random generator).
pub trait Worker: Send {
    /// Run one transaction on `conn`, counting each statement into `counters`.
    fn event(
        &mut self,
        conn: &mut Session,
        counters: &mut QueryCounters,
    ) -> std::result::Result<(), EventError>;

    /// After a reconnect: prepare the statements again on the new connection.
    fn reconnected(&mut self, conn: &mut Session) -> Result<()>;

    /// The transaction class (index into [`Workload::class_names`]) of the next event.
    fn class(&self) -> usize {
        0
    }

    /// Called before each event; may wait for another worker (`stopping` says when to give
    /// up). False: this worker has done all its work and leaves the run.
    fn next_event(&mut self, _stopping: &dyn Fn() -> bool) -> bool {
        true
    }
}

/// When a thread's events are due.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// The run's schedule: closed loop, or the shared `--rate` arrivals.
    Run,
    /// Its own even schedule: event k is due `offset + k * every` after the start, and its
    /// latency counts from then (no burst, no coordinated omission).
    Every { every: Duration, offset: Duration },
}

/// A workload: dataset preparation, cleanup and per-thread workers.
pub trait Workload: Send + Sync {
    fn name(&self) -> &str;

    /// Create the database objects and load data (`threads` connections in parallel);
    /// the same `seed` gives the same data.
    fn prepare(&self, endpoint: &Endpoint, threads: usize, seed: u64) -> Result<()>;

    /// Drop what `prepare` created.
    fn cleanup(&self, endpoint: &Endpoint) -> Result<()>;

    /// State for worker `thread` of `threads`, seeded with `seed`; prepares its statements
    /// on `conn` (before the timed window starts).
    fn worker(
        &self,
        thread: usize,
        threads: usize,
        seed: u64,
        conn: &mut Session,
    ) -> Result<Box<dyn Worker>>;

    /// The transaction classes this workload's workers report, each with its own latency.
    fn class_names(&self) -> Vec<String> {
        vec![self.name().to_string()]
    }

    /// The schedule of thread `thread`.
    fn pace(&self, _thread: usize) -> Pace {
        Pace::Run
    }

    /// Each class's statements, `(line, command, mean ms)`, over the runs since the last
    /// call, where the workload keeps them (a script step with `per_statement`).
    fn take_statement_latencies(&self) -> Vec<Vec<(usize, String, f64)>> {
        Vec::new()
    }

    /// What its events are where they are not transactions (a replay's: statements).
    fn unit(&self) -> Option<&'static str> {
        None
    }

    /// What the study's notes say of the workload once (a replay: its log's format, sessions
    /// and statements).
    fn describe(&self) -> Option<String> {
        None
    }

    /// What the runs since the last call leave to say in the study's notes (a replay's
    /// failed statements, by kind and line).
    fn take_notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// True when every worker ends by itself ([`Worker::next_event`]), so that a run needs
    /// neither `--time` nor `--events`.
    fn ends_by_itself(&self) -> bool {
        false
    }
}
