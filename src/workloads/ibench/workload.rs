//! One step as a driver workload: which worker each thread runs (clients × roles), and the
//! even schedule of the throttled writers.

use super::options::IbenchOptions;
use super::roles::{Deleter, Indexer, Inserter, Querier, CLASSES};
use super::schema;
use super::steps::{Step, StepKind};
use super::table::TableState;
use crate::connection::Session;
use crate::connection::{AdminConn, Endpoint};
use crate::workloads::random::Rng;
use crate::workloads::{Pace, Worker, Workload};
use anyhow::{Context, Result};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Insert,
    Delete,
    Query,
    Index,
}

pub struct StepWorkload {
    name: String,
    step: Step,
    opts: IbenchOptions,
    pub tables: Vec<Arc<TableState>>,
}

impl StepWorkload {
    /// `tables`: each client's table with its key range before the step.
    pub fn new(step: Step, opts: IbenchOptions, tables: Vec<Arc<TableState>>) -> Self {
        StepWorkload {
            name: format!("insert-benchmark {}", step.name),
            step,
            opts,
            tables,
        }
    }

    /// The throttled writers' period: rows_per_commit / R seconds.
    fn period(&self) -> Option<Duration> {
        self.step
            .rate()
            .map(|r| Duration::from_secs_f64(self.step.rows_per_commit as f64 / r as f64))
    }

    fn roles(&self) -> &'static [Role] {
        match self.step.kind {
            StepKind::Load { deletes: false } => &[Role::Insert],
            StepKind::Load { deletes: true } => &[Role::Insert, Role::Delete],
            StepKind::Index => &[Role::Index],
            StepKind::Query { .. } => &[Role::Insert, Role::Delete, Role::Query],
        }
    }

    /// Threads the driver must start.
    pub fn threads(&self) -> usize {
        self.tables.len() * self.roles().len()
    }

    fn role_of(&self, thread: usize) -> (Role, usize) {
        let n = self.tables.len();
        (self.roles()[thread / n], thread % n)
    }
}

impl Workload for StepWorkload {
    fn name(&self) -> &str {
        &self.name
    }

    /// Drop and create the database and tables.
    fn prepare(&self, endpoint: &Endpoint, _threads: usize, _seed: u64) -> Result<()> {
        schema::recreate(endpoint, &self.opts)
    }

    fn cleanup(&self, endpoint: &Endpoint) -> Result<()> {
        schema::drop_database(endpoint)
    }

    fn worker(
        &self,
        thread: usize,
        _threads: usize,
        seed: u64,
        conn: &mut Session,
    ) -> Result<Box<dyn Worker>> {
        let (role, t) = self.role_of(thread);
        let table = self.tables[t].clone();
        // One stream per (table, role): the same seed gives the same rows and queries.
        let rng = Rng::for_stream(seed, thread as u64);
        let s = &self.step;
        let inserter = |conn: &mut Session, table, rng| {
            Inserter::new(
                conn,
                table,
                &self.opts,
                s.rows_per_commit,
                s.statements,
                rng,
            )
        };
        let w: Box<dyn Worker> = match role {
            Role::Insert => Box::new(inserter(conn, table, rng)?.throttled(self.period())),
            Role::Delete => Box::new(Deleter::new(conn, table, s.rows_per_commit, s.statements)?),
            Role::Query => {
                let StepKind::Query { shape, .. } = s.kind else {
                    unreachable!("query workers only in query steps")
                };
                Box::new(Querier::new(conn, table, &self.opts, shape, rng)?)
            }
            Role::Index => Box::new(Indexer::new(inserter(conn, table, rng)?)),
        };
        Ok(w)
    }

    fn class_names(&self) -> Vec<String> {
        CLASSES.iter().map(|s| s.to_string()).collect()
    }

    /// Writers of a query step: one statement every rows_per_commit / R seconds, deletes
    /// half a period after their insert; everything else as fast as it can.
    fn pace(&self, thread: usize) -> Pace {
        let (role, _) = self.role_of(thread);
        match (self.period(), role) {
            (Some(every), Role::Insert | Role::Delete) => {
                let offset = if role == Role::Delete {
                    every / 2
                } else {
                    Duration::ZERO
                };
                Pace::Every { every, offset }
            }
            _ => Pace::Run,
        }
    }

    fn ends_by_itself(&self) -> bool {
        true
    }
}

/// The tables' shared state for a step, from their key ranges now (`conn` on the benchmark's
/// database).
pub fn table_states(conn: &mut AdminConn, clients: u32) -> Result<Vec<Arc<TableState>>> {
    (0..clients as usize)
        .map(|c| {
            let name = schema::table_name(c);
            let f = schema::facts(conn, &name)
                .with_context(|| format!("reading {}.{name} before the step", schema::DATABASE))?;
            Ok(Arc::new(TableState::new(name, f.min_id, f.max_id)))
        })
        .collect()
}
