//! Stage 2c: the Insert Benchmark's step sequence, the one both `bench insert-benchmark`
//! and studies run. Each step is a driver run of `workloads::ibench` workers, with the
//! tables read before and after it, the cleanup before the first query step, and one result
//! per step (results::insert_benchmark). docs/insert-benchmark.md describes it.

pub mod buckets;
pub mod cleanup;
pub mod result;
mod sequence;

pub use result::Counts;
pub use sequence::{run_sequence, Measure, StepHost};

use crate::connection::{AdminConn, Endpoint};
use crate::driver::{self, RunOptions, RunReport, Unwatched};
use crate::error::usage;
use crate::results::insert_benchmark::StepResult;
use crate::workloads::ibench::{schema, table_states, IbenchOptions, Step, StepWorkload};
use anyhow::{Context, Result};
use std::sync::atomic::Ordering;

/// Where and how steps run.
pub struct Target<'a> {
    /// The workers' server and account (any database; steps use `ib`).
    pub endpoint: &'a Endpoint,
    pub opts: &'a IbenchOptions,
    /// Percentiles kept besides p50/p95/p99/p99.9 (may be empty).
    pub percentiles: &'a [f64],
}

/// The cleanup runs before a query step that follows a load step (between l.i2 and qr100).
pub fn needs_cleanup(previous: Option<&Step>, step: &Step) -> bool {
    step.is_query() && previous.is_some_and(|p| !p.is_query())
}

/// Run one step: (re)create the tables for l.i0, measure, read the tables after.
pub fn run_step(t: &Target, step: &Step, seed: u64) -> Result<(StepResult, RunReport)> {
    if step.creates_tables() {
        schema::recreate(t.endpoint, t.opts)?;
    }
    // The server first, so that a wrong password or an unreachable server says so; then the
    // database, which only an earlier l.i0 creates.
    drop(AdminConn::open(&t.endpoint.clone().with_database(None))?);
    let mut admin = AdminConn::open(&schema::in_database(t.endpoint)).map_err(|e| {
        usage(format!(
            "{}: the database of an earlier step is missing (run l.i0 first): {e:#}",
            step.name
        ))
    })?;
    let tables = table_states(&mut admin, t.opts.clients).map_err(|e| {
        usage(format!(
            "{}: the tables of an earlier step are missing or unreadable (run l.i0 first): {e:#}",
            step.name
        ))
    })?;
    let workload = StepWorkload::new(step.clone(), t.opts.clone(), tables);
    let ropts = run_options(t, workload.threads(), seed);
    let endpoint = schema::in_database(t.endpoint);
    let report = driver::measure(&workload, &endpoint, &ropts, seed, &mut Unwatched)
        .with_context(|| format!("Insert Benchmark step {}", step.name))?;
    let counts = counts(&workload);
    let after = workload
        .tables
        .iter()
        .map(|tb| schema::facts(&mut admin, &tb.name))
        .collect::<Result<Vec<_>>>()?;
    let result = StepResult::build(step, t.opts.clients, &report, &counts, after);
    Ok((result, report))
}

/// The driver options of a step, for its run and for its document.
pub fn run_options(t: &Target, threads: usize, seed: u64) -> RunOptions {
    RunOptions {
        threads: threads as i64,
        time: t.opts.max_seconds,
        events: 0,
        rand_seed: seed,
        // The driver wants one for its interval line; p50..p99.9 are always kept.
        percentiles: if t.percentiles.is_empty() {
            vec![99.0]
        } else {
            t.percentiles.to_vec()
        },
        ..RunOptions::default()
    }
}

fn counts(w: &StepWorkload) -> Counts {
    let mut c = Counts::default();
    for t in &w.tables {
        c.rows_inserted += t.rows_inserted.load(Ordering::Relaxed);
        c.rows_deleted += t.rows_deleted.load(Ordering::Relaxed);
        c.short_deletes += t.short_deletes.load(Ordering::Relaxed);
        c.queries += t.queries.load(Ordering::Relaxed);
        c.rows_fetched += t.rows_fetched.load(Ordering::Relaxed);
        for (sum, n) in c.range_queries.iter_mut().zip(&t.range_queries) {
            *sum += n.load(Ordering::Relaxed);
        }
    }
    c
}
