//! Counting each connection's server process from the dump it writes when it exits
//! (docs/cost-mode.md#postgresql; PostgreSQL forks a backend per connection). The server runs
//! under callgrind with every forked process traced from its fork; such a process cannot be
//! reached by `callgrind_control`, so each window runs on a connection of its own and its
//! process's instructions come from its exit dump, found by the connection's id (the backend's
//! pid). What a process does once (its start, authentication, first catalog look-ups,
//! preparing the statements, its exit) is the same in every window and cancels in the
//! marginal estimates, which must agree as a serving thread's do; a warm-up connection first
//! fills the shared caches.

use super::callgrind;
use super::counter::{BeforeWindow, Counter};
use super::dumps::{exit_dump_ir, DUMP_WAIT};
use super::exit_dump_writes;
use super::session::Session;
use super::target::Target;
use super::windows::{attempts, CostMeasurement, Plan, Window};
use crate::connection::AdminConn;
use crate::workloads::ibench::{IbenchOptions, Step};
use crate::workloads::Workload;
use anyhow::Result;
use std::path::Path;

/// A connection per window, each counted from its server process's exit dump.
pub struct ExitDumps;

impl Counter for ExitDumps {
    fn wrapper(&self, dumps: &Path) -> Result<Vec<String>> {
        callgrind::wrapper_traced_from_start(dumps)
    }

    fn count_windows(
        &self,
        target: &Target,
        workload: &dyn Workload,
        plan: &Plan,
        seed: u64,
        before_window: BeforeWindow,
    ) -> Result<CostMeasurement> {
        let (ep, dumps) = (&target.endpoint, target.dumps.as_path());
        {
            let mut warm = Session::open(workload, ep, seed)?;
            warm.warm_up(plan)?;
            let pid = warm.conn.connection_id() as i32;
            drop(warm);
            exit_dump_ir(dumps, pid, DUMP_WAIT)?;
        }
        attempts(|attempt| {
            let mut counted = Vec::new();
            for (i, n) in plan.windows.iter().enumerate() {
                let mut s = Session::open(workload, ep, seed)?;
                let pid = s.conn.connection_id() as i32;
                before_window(attempt, i, &mut s.conn)?;
                s.run_window(*n, plan.block())?;
                drop(s);
                counted.push(Window {
                    attempt,
                    events: *n,
                    ir: exit_dump_ir(dumps, pid, DUMP_WAIT)?,
                    // A backend has one thread.
                    thread: 1,
                });
            }
            Ok(counted)
        })
    }

    fn settle(&self, conn: &mut AdminConn, target: &Target) -> Result<()> {
        exit_dump_writes::settle(conn, &target.endpoint)
    }

    fn measure_write(
        &self,
        target: &Target,
        conn: &mut AdminConn,
        step: &Step,
        opts: &IbenchOptions,
        seed: u64,
    ) -> Result<CostMeasurement> {
        exit_dump_writes::measure_write(target, conn, step, opts, seed)
    }
}
