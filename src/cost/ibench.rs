//! Cost mode of an Insert Benchmark entry (docs/cost-mode.md#the-insert-benchmark), on a
//! server already under callgrind: the step sequence on one table at cost mode's own sizes,
//! each step's work on one connection.
//!
//! - l.i0, l.i1, l.i2: the instructions of the connection over the whole step per inserted
//!   row; l.x: those of its index build per indexed row. Each is measured twice from the
//!   same table (kept aside before the step; each attempt runs on a table rebuilt from it,
//!   and the same seed inserts the same rows); the two must agree within
//!   [`super::WRITE_TOLERANCE`], else the result is unstable. How the table is rebuilt and
//!   settled is the counting method's ([`Counter::measure_write`]).
//! - query steps: the query connection alone, writers off (their wall-clock schedule cannot
//!   be kept under callgrind), in the windows and self-check of sysbench workloads. Writers
//!   off, qr500 and qr1000 do what qr100 does: the caller counts each query shape once.
//! - steps not counted: a write step before a counted one runs uncounted, to build the table.

use super::counter::{measure, Counter};
use super::target::Target;
use super::windows::{Plan, Window};
use super::write_steps::table_state;
use crate::connection::AdminConn;
use crate::results::{CostResult, CostUnit};
use crate::workloads::ibench::{schema, IbenchOptions, QueriesOnly, Step, WriteWork, DATABASE};
use anyhow::Result;

/// Said once in a document whose cost mode measured Insert Benchmark query steps.
pub const QUERY_NOTE: &str = "Cost mode of the Insert Benchmark's query steps counts the query connection alone, with the background writers off: their wall-clock schedule cannot be kept under callgrind. Writers off, a query step's rate makes no difference, so each query shape is measured once, at the first of its steps (qr100 stands for qr500 and qr1000).";

/// An Insert Benchmark entry as cost mode runs it.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The entry's options at cost mode's sizes (one client).
    pub options: IbenchOptions,
    /// Its steps in order, up to the last one counted: each needs the table the earlier
    /// ones leave.
    pub steps: Vec<EntryStep>,
    /// The windows its query steps are counted in.
    pub plan: Plan,
}

/// One step of an [`Entry`].
#[derive(Clone, Debug)]
pub struct EntryStep {
    pub step: Step,
    /// The name of its cost result (its cell label).
    pub label: String,
    /// The seed its work draws from, counted or not (the same rows either way).
    pub seed: u64,
    /// Whether it gets a cost result; a write step that does not still runs, uncounted.
    pub counted: bool,
}

/// Where an entry's results go, step by step.
pub trait Record {
    /// Told before a step is counted.
    fn begin(&mut self, label: &str);
    /// Each counted step's result, to record and save.
    fn done(&mut self, entry: CostResult) -> Result<()>;
}

/// Run the entry's steps on `target` (any database: the benchmark's own is recreated) and
/// hand each counted step's result to `rec`. A write step not counted runs once with
/// instrumentation off, and a query step not counted is skipped (with the writers off it
/// changes nothing). A failed step ends the sequence.
pub fn measure_entry(
    counter: &dyn Counter,
    target: &Target,
    entry: &Entry,
    rec: &mut dyn Record,
) -> Result<()> {
    let opts = &entry.options;
    let admin = target.endpoint.clone().with_database(None);
    schema::recreate(&admin, opts)?;
    let target = target.in_database(DATABASE);
    let mut conn = AdminConn::open(&target.endpoint)?;
    // Why the steps counted from here on cannot be: an uncounted step before them failed.
    let mut broken: Option<String> = None;
    for s in &entry.steps {
        let (step, label) = (&s.step, &s.label);
        if !s.counted {
            if !step.is_query() && broken.is_none() {
                if let Err(e) = run_uncounted(&target, &mut conn, step, opts, s.seed) {
                    broken = Some(format!("{label}, run uncounted to build the table: {e:#}"));
                }
            }
            continue;
        }
        rec.begin(label);
        let mut result = CostResult::new("", label);
        result.unit = if step.is_query() {
            CostUnit::Query
        } else {
            CostUnit::Row
        };
        if let Some(why) = broken {
            result.error = Some(why);
            rec.done(result)?;
            break;
        }
        let outcome = if step.is_query() {
            counter.settle(&mut conn, &target)?;
            let queries = QueriesOnly::new(step, opts, table_state(&mut conn)?)?;
            measure(counter, &target, &queries, &entry.plan, s.seed)
        } else {
            counter.measure_write(&target, &mut conn, step, opts, s.seed)
        };
        let failed = outcome.is_err();
        match outcome {
            Ok(m) => {
                result.ok = true;
                result.ir_per_txn = m.ir_per_txn;
                result.estimates = m.estimates;
                result.unstable = m.unstable;
                result.windows = m.windows.iter().map(Window::recorded).collect();
            }
            Err(e) => result.error = Some(format!("{e:#}")),
        }
        rec.done(result)?;
        if failed {
            break;
        }
    }
    drop(conn);
    let _ = schema::drop_database(&admin);
    Ok(())
}

/// A write step once, instrumentation off, on the table as it is.
fn run_uncounted(
    target: &Target,
    conn: &mut AdminConn,
    step: &Step,
    opts: &IbenchOptions,
    seed: u64,
) -> Result<()> {
    let mut session = target.endpoint.session()?;
    let mut work = WriteWork::prepare(&mut session, step, opts, table_state(conn)?, seed)?;
    work.before(&mut session)?;
    work.run(&mut session)?;
    Ok(())
}
