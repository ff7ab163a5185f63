//! Counting the server thread that serves one long-lived connection (MariaDB and MySQL run one
//! thread per connection). The server runs with instrumentation off; `callgrind_control` turns
//! it on, zeroes and dumps around each window, and each window's instructions are those of the
//! thread that did the most work over all the attempt's windows, matched across dumps.

use super::callgrind;
use super::counter::{BeforeWindow, Counter};
use super::dumps::{self, Dump};
use super::serving_thread_writes;
use super::session::Session;
use super::target::Target;
use super::windows::{attempts, CostMeasurement, Plan, Window};
use crate::connection::AdminConn;
use crate::workloads::ibench::{IbenchOptions, Step};
use crate::workloads::Workload;
use anyhow::{Context, Result};
use std::path::Path;

/// One connection kept for the warm-up and every window; its serving thread is counted
/// through `callgrind_control`.
pub struct ServingThread;

impl Counter for ServingThread {
    fn wrapper(&self, dumps: &Path) -> Result<Vec<String>> {
        callgrind::wrapper(dumps)
    }

    fn count_windows(
        &self,
        target: &Target,
        workload: &dyn Workload,
        plan: &Plan,
        seed: u64,
        before_window: BeforeWindow,
    ) -> Result<CostMeasurement> {
        let mut session = Session::open(workload, &target.endpoint, seed)?;
        session.warm_up(plan)?;
        attempts(|attempt| count_attempt(&mut session, plan, target, attempt, before_window))
    }

    /// Nothing: the serving thread is counted alone, whatever else the server does.
    fn settle(&self, _conn: &mut AdminConn, _target: &Target) -> Result<()> {
        Ok(())
    }

    fn measure_write(
        &self,
        target: &Target,
        conn: &mut AdminConn,
        step: &Step,
        opts: &IbenchOptions,
        seed: u64,
    ) -> Result<CostMeasurement> {
        serving_thread_writes::measure_write(target, conn, step, opts, seed)
    }
}

/// One attempt: instrumentation on, then per window zero, run, dump; the serving thread is the
/// one that did the most work over all windows, and every window counts that thread.
fn count_attempt(
    session: &mut Session,
    plan: &Plan,
    target: &Target,
    attempt: u32,
    before_window: BeforeWindow,
) -> Result<Vec<Window>> {
    let pid = target.pid;
    callgrind::control(&["-i", "on"], target)?;
    let mut taken: Vec<Dump> = Vec::new();
    for (i, n) in plan.windows.iter().enumerate() {
        callgrind::control(&["-z"], target)?;
        before_window(attempt, i, &mut session.conn)?;
        session.run_window(*n, plan.block())?;
        callgrind::control(&["-d"], target)?;
        taken.push(dumps::newest_dump(&target.dumps, pid)?);
    }
    callgrind::control(&["-i", "off"], target)?;
    let thread = dumps::busiest_thread(&taken)
        .with_context(|| format!("no thread of pid {pid} in the dumps"))?;
    dumps::check_request_reads(&taken, thread, pid)?;
    plan.windows
        .iter()
        .zip(&taken)
        .map(|(n, d)| {
            let ir = d.threads.get(&thread).copied().with_context(|| {
                format!("thread {thread} missing from callgrind dump {}", d.number)
            })?;
            Ok(Window {
                attempt,
                events: *n,
                ir,
                thread,
            })
        })
        .collect()
}
