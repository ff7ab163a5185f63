//! A step's work on one connection, for cost mode (docs/cost-mode.md#the-insert-benchmark):
//! under callgrind the instructions of the connection that did the work are counted, and one
//! connection makes that one server thread. A load step's inserts, with the delete that
//! follows each insert in l.i1 and l.i2, in the order the step issues them; l.x's one insert,
//! then its index build alone; a query step's queries with no writers.

use super::options::IbenchOptions;
use super::roles::{Deleter, Inserter, Querier};
use super::schema::add_indexes;
use super::steps::{Step, StepKind};
use super::table::TableState;
use crate::connection::Endpoint;
use crate::connection::Session;
use crate::workloads::random::Rng;
use crate::workloads::{EventError, QueryCounters, Worker, Workload};
use anyhow::{anyhow, bail, Context, Result};
use std::sync::Arc;

fn event(w: &mut dyn Worker, conn: &mut Session, q: &mut QueryCounters) -> Result<()> {
    match w.event(conn, q) {
        Ok(()) => Ok(()),
        // One connection has nobody to deadlock with: any such error is a real failure.
        Err(EventError::Retryable { code, message }) => {
            bail!("error {code} on the measured connection: {message}")
        }
        Err(EventError::ConnectionLost(m)) => bail!("the measured connection was lost: {m}"),
        Err(EventError::Failed(m)) => bail!("a transaction failed: {m}"),
        Err(EventError::Fatal(e)) => Err(e),
    }
}

/// A load step or l.x, prepared on its connection.
pub struct WriteWork {
    step: Step,
    inserter: Inserter,
    deleter: Option<Deleter>,
    table: Arc<TableState>,
}

impl WriteWork {
    /// `seed` draws the rows: the same seed on the same table state inserts the same rows.
    pub fn prepare(
        conn: &mut Session,
        step: &Step,
        opts: &IbenchOptions,
        table: Arc<TableState>,
        seed: u64,
    ) -> Result<WriteWork> {
        if step.is_query() {
            return Err(anyhow!("{} is a query step", step.name));
        }
        let inserter = Inserter::new(
            conn,
            table.clone(),
            opts,
            step.rows_per_commit,
            step.statements,
            Rng::for_stream(seed, 0),
        )?;
        let deleter = match step.kind {
            StepKind::Load { deletes: true } => Some(Deleter::new(
                conn,
                table.clone(),
                step.rows_per_commit,
                step.statements,
            )?),
            _ => None,
        };
        Ok(WriteWork {
            step: step.clone(),
            inserter,
            deleter,
            table,
        })
    }

    /// What comes before the counted work: l.x's one insert (its index build is what is
    /// counted); nothing for a load step.
    pub fn before(&mut self, conn: &mut Session) -> Result<()> {
        if self.step.kind == StepKind::Index {
            let mut q = QueryCounters::default();
            for _ in 0..self.step.statements {
                event(&mut self.inserter, conn, &mut q)?;
            }
        }
        Ok(())
    }

    /// The counted work. Returns the rows inserted (a load step); l.x returns 0, its indexed
    /// rows are the table's.
    pub fn run(&mut self, conn: &mut Session) -> Result<u64> {
        let mut q = QueryCounters::default();
        if self.step.kind == StepKind::Index {
            for sql in add_indexes(&self.table.name, conn.dialect()) {
                conn.query(&sql).with_context(|| {
                    format!("building the indexes of {}: `{sql}`", self.table.name)
                })?;
            }
            return Ok(0);
        }
        for _ in 0..self.step.statements {
            event(&mut self.inserter, conn, &mut q)?;
            if let Some(d) = &mut self.deleter {
                event(d, conn, &mut q)?;
            }
        }
        Ok(self.step.rows())
    }
}

/// A query step's queries alone, as a workload cost mode can replay in windows: every worker
/// is a query worker on the one table, drawing from `seed`.
pub struct QueriesOnly {
    name: String,
    step: Step,
    opts: IbenchOptions,
    table: Arc<TableState>,
}

impl QueriesOnly {
    pub fn new(step: &Step, opts: &IbenchOptions, table: Arc<TableState>) -> Result<Self> {
        if !step.is_query() {
            return Err(anyhow!("{} is not a query step", step.name));
        }
        Ok(QueriesOnly {
            name: format!("insert-benchmark {} queries", step.name),
            step: step.clone(),
            opts: opts.clone(),
            table,
        })
    }
}

impl Workload for QueriesOnly {
    fn name(&self) -> &str {
        &self.name
    }

    /// The table is the step sequence's: nothing to create.
    fn prepare(&self, _endpoint: &Endpoint, _threads: usize, _seed: u64) -> Result<()> {
        Ok(())
    }

    fn cleanup(&self, _endpoint: &Endpoint) -> Result<()> {
        Ok(())
    }

    fn worker(
        &self,
        _thread: usize,
        _threads: usize,
        seed: u64,
        conn: &mut Session,
    ) -> Result<Box<dyn Worker>> {
        let StepKind::Query { shape, .. } = self.step.kind else {
            unreachable!("checked in new")
        };
        Ok(Box::new(Querier::new(
            conn,
            self.table.clone(),
            &self.opts,
            shape,
            Rng::for_stream(seed, 2),
        )?))
    }
}
