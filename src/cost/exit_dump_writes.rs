//! The Insert Benchmark's write steps counted from exit dumps
//! (docs/cost-mode.md#the-insert-benchmark). A backend cannot be reached by
//! `callgrind_control`, so what a step's connection does is counted from the dump its backend
//! writes at exit, less that of a baseline backend that connects and prepares the same
//! statements and does nothing else. Each attempt runs on a table rebuilt the same way from a
//! copy taken before the step, with autovacuum held off it (as InnoDB's purge is held back for
//! the serving thread), the key sequence where it stood, and the database vacuumed and
//! checkpointed.

use super::dumps::{exit_dump_ir, DUMP_WAIT};
use super::target::Target;
use super::windows::{CostMeasurement, Window};
use super::write_steps::verdict;
use crate::connection::{AdminConn, Endpoint, Session};
use crate::workloads::ibench::schema::{self, add_indexes, create_table, index_name};
use crate::workloads::ibench::{IbenchOptions, Step, StepKind, TableState, WriteWork};
use anyhow::{Context, Result};
use std::sync::Arc;

/// A write step twice from the same table: the backend's instructions per row.
pub fn measure_write(
    target: &Target,
    conn: &mut AdminConn,
    step: &Step,
    opts: &IbenchOptions,
    seed: u64,
) -> Result<CostMeasurement> {
    Counted {
        endpoint: &target.endpoint,
        dumps: &target.dumps,
    }
    .measure_write(conn, step, opts, seed)
}

/// Where the counted backends connect (the benchmark's database) and dump.
struct Counted<'a> {
    endpoint: &'a Endpoint,
    dumps: &'a std::path::Path,
}

/// The key sequence's state, to put back before each attempt.
struct Sequence {
    last_value: String,
    is_called: String,
}

impl Counted<'_> {
    fn measure_write(
        &self,
        conn: &mut AdminConn,
        step: &Step,
        opts: &IbenchOptions,
        seed: u64,
    ) -> Result<CostMeasurement> {
        let table = schema::table_name(0);
        let copy = format!("{table}_before_cost");
        let before = schema::facts(conn, &table)?;
        let indexed = before
            .indexes
            .contains(&index_name(&table, schema::INDEXES[0].0));
        let seq = conn
            .rows(&format!(
                "SELECT last_value, is_called FROM {table}_transactionid_seq"
            ))?
            .into_iter()
            .next()
            .and_then(|r| match r.as_slice() {
                [Some(v), Some(c)] => Some(Sequence {
                    last_value: v.clone(),
                    is_called: c.clone(),
                }),
                _ => None,
            })
            .with_context(|| format!("reading the key sequence of {table}"))?;
        conn.run(&format!("DROP TABLE IF EXISTS {copy}"))
            .and_then(|_| conn.run(&format!("CREATE TABLE {copy} AS SELECT * FROM {table}")))
            .with_context(|| format!("keeping {table} as it was before {}", step.name))?;
        let mut windows = Vec::new();
        let mut per_row = Vec::new();
        for attempt in 1..=2u32 {
            rebuild(conn, &table, &copy, &seq, indexed, opts)
                .and_then(|_| settle(conn, self.endpoint))
                .with_context(|| {
                    format!("rebuilding {table} for attempt {attempt} of {}", step.name)
                })?;
            let (ir, rows) = self
                .attempt(conn, step, opts, seed)
                .with_context(|| format!("{} attempt {attempt}", step.name))?;
            anyhow::ensure!(rows > 0, "{}: no rows to count per", step.name);
            windows.push(Window {
                attempt,
                events: u32::try_from(rows).unwrap_or(u32::MAX),
                ir,
                // A backend has one thread.
                thread: 1,
            });
            per_row.push(ir as f64 / rows as f64);
        }
        conn.run(&format!("ALTER TABLE {table} RESET (autovacuum_enabled)"))?;
        conn.run(&format!("DROP TABLE {copy}"))?;
        Ok(verdict(windows, per_row))
    }

    /// One attempt: l.x's insert on a connection of its own, then a baseline backend and the
    /// counted one. Returns the counted backend's instructions less the baseline's, and the
    /// rows they are per.
    fn attempt(
        &self,
        conn: &mut AdminConn,
        step: &Step,
        opts: &IbenchOptions,
        seed: u64,
    ) -> Result<(u64, u64)> {
        if step.kind == StepKind::Index {
            let (mut s, mut work) = self.open(conn, step, opts, seed)?;
            work.before(&mut s)?;
        }
        let (s, _) = self.open(conn, step, opts, seed)?;
        let baseline = self.exit_count(s)?;
        let (mut s, mut work) = self.open(conn, step, opts, seed)?;
        let inserted = work.run(&mut s)?;
        let counted = self.exit_count(s)?;
        let rows = if step.kind == StepKind::Index {
            schema::facts(conn, &schema::table_name(0))?.rows
        } else {
            inserted
        };
        Ok((counted.saturating_sub(baseline), rows))
    }

    /// A connection with the step's statements prepared. Index builds stay in the backend:
    /// parallel workers would be processes of their own, not counted.
    fn open(
        &self,
        conn: &mut AdminConn,
        step: &Step,
        opts: &IbenchOptions,
        seed: u64,
    ) -> Result<(Session, WriteWork)> {
        let mut s = self.endpoint.session()?;
        if step.kind == StepKind::Index {
            s.query("SET max_parallel_maintenance_workers = 0")?;
        }
        let table = schema::table_name(0);
        let f = schema::facts(conn, &table)?;
        let state = Arc::new(TableState::new(table, f.min_id, f.max_id));
        let work = WriteWork::prepare(&mut s, step, opts, state, seed)?;
        Ok((s, work))
    }

    /// Close the session and read its backend's instructions from the dump it writes.
    fn exit_count(&self, s: Session) -> Result<u64> {
        let pid = s.connection_id() as i32;
        drop(s);
        exit_dump_ir(self.dumps, pid, DUMP_WAIT)
    }
}

/// `table` as psbench creates it, with the copy's rows in key order, the sequence where it
/// stood, the indexes it had, and autovacuum off.
fn rebuild(
    conn: &mut AdminConn,
    table: &str,
    copy: &str,
    seq: &Sequence,
    indexed: bool,
    opts: &IbenchOptions,
) -> Result<()> {
    conn.run(&format!("DROP TABLE IF EXISTS {table}"))?;
    for sql in create_table(table, &opts.engine, conn.dialect()) {
        conn.run(&sql)?;
    }
    conn.run(&format!(
        "ALTER TABLE {table} SET (autovacuum_enabled = off)"
    ))?;
    conn.run(&format!(
        "INSERT INTO {table} SELECT * FROM {copy} ORDER BY transactionid"
    ))?;
    conn.rows(&format!(
        "SELECT setval('{table}_transactionid_seq', {}, {})",
        seq.last_value,
        seq.is_called == "t"
    ))?;
    if indexed {
        for sql in add_indexes(table, conn.dialect()) {
            conn.run(&sql)?;
        }
    }
    Ok(())
}

/// Before counted work: nothing left for autovacuum to do (unsettled, one query window here
/// counted 2.3 million instructions more than its attempt's others, most likely an autoanalyze
/// of the table invalidating the backend's plans and caches; settled, the windows agreed),
/// every page checkpointed, so that each attempt writes the same full-page images, and the
/// relation cache's init file, which vacuuming the catalogs invalidates, written again by a
/// connection of psbench's own (else, it seems, whichever backend starts first rebuilds it:
/// two write attempts were 2.8% apart until this connection was added).
pub fn settle(conn: &mut AdminConn, endpoint: &Endpoint) -> Result<()> {
    conn.run("VACUUM (ANALYZE)")?;
    conn.run("CHECKPOINT")?;
    drop(AdminConn::open(endpoint)?);
    Ok(())
}
