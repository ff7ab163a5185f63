//! How a server's work is counted: the method is the caller's choice (the engine knows which
//! its server needs), and cost mode runs the same plan, self-check and Insert Benchmark steps
//! with either.

use super::target::Target;
use super::windows::{CostMeasurement, Plan};
use crate::connection::{self, AdminConn};
use crate::workloads::ibench::{IbenchOptions, Step};
use crate::workloads::Workload;
use anyhow::Result;
use std::path::Path;

/// Called before each window's transactions, on the measured connection, with the attempt
/// (1-based) and the window's index. Studies pass nothing; the self-check's test injects a
/// one-off burst of work here.
pub type BeforeWindow<'a> = &'a mut dyn FnMut(u32, usize, &mut connection::Session) -> Result<()>;

/// A way of counting the instructions a server spends on a connection's work.
pub trait Counter {
    /// The command the server starts under, writing its dumps to `dumps`.
    fn wrapper(&self, dumps: &Path) -> Result<Vec<String>>;

    /// The plan's windows of `workload` on `target`, in up to [`super::ATTEMPTS`] attempts
    /// (the plan already checked).
    fn count_windows(
        &self,
        target: &Target,
        workload: &dyn Workload,
        plan: &Plan,
        seed: u64,
        before_window: BeforeWindow,
    ) -> Result<CostMeasurement>;

    /// Before an Insert Benchmark query step is counted, on `conn` to the benchmark's database
    /// (`target` on it too): whatever the server must have finished first.
    fn settle(&self, conn: &mut AdminConn, target: &Target) -> Result<()>;

    /// An Insert Benchmark write step twice from the same table, on `conn` to the benchmark's
    /// database (`target` on it too): instructions per row, and whether the two attempts
    /// agree within [`super::WRITE_TOLERANCE`].
    fn measure_write(
        &self,
        target: &Target,
        conn: &mut AdminConn,
        step: &Step,
        opts: &IbenchOptions,
        seed: u64,
    ) -> Result<CostMeasurement>;
}

/// Measure `workload` on `target`, a server already running under `counter`'s wrapper.
pub fn measure(
    counter: &dyn Counter,
    target: &Target,
    workload: &dyn Workload,
    plan: &Plan,
    seed: u64,
) -> Result<CostMeasurement> {
    measure_with(counter, target, workload, plan, seed, &mut |_, _, _| Ok(()))
}

/// As [`measure`], calling `before_window` before each window's transactions.
pub fn measure_with(
    counter: &dyn Counter,
    target: &Target,
    workload: &dyn Workload,
    plan: &Plan,
    seed: u64,
    before_window: BeforeWindow,
) -> Result<CostMeasurement> {
    Plan::check(&plan.windows).map_err(anyhow::Error::msg)?;
    counter.count_windows(target, workload, plan, seed, before_window)
}
