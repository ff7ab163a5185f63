//! Cost mode on PostgreSQL (docs/cost-mode.md#postgresql): the postmaster runs under
//! callgrind with every forked backend traced from its fork. A backend cannot be reached by
//! `callgrind_control`, so each window runs on a connection of its own and its backend's
//! instructions come from the dump it writes when it exits, found by `pg_backend_pid()`.
//! What a backend does once (its start, authentication, first catalog look-ups, preparing
//! the statements, its exit) is the same in every window and cancels in the marginal
//! estimates, which must agree as MariaDB's do; a warm-up connection first fills the shared
//! caches.

use super::callgrind;
use super::cost::{CostMeasurement, Plan, Session, Window};
use crate::connection::Endpoint;
use crate::workloads::Workload;
use anyhow::Result;
use std::path::Path;
use std::time::Duration;

/// How long a backend may take to exit and write its dump under valgrind.
const DUMP_WAIT: Duration = Duration::from_secs(120);

pub fn measure(
    ep: &Endpoint,
    workload: &dyn Workload,
    plan: &Plan,
    dump_dir: &Path,
    seed: u64,
    before_window: super::cost::BeforeWindow,
) -> Result<CostMeasurement> {
    {
        let mut warm = Session::open(workload, ep, seed)?;
        warm.warm_up(plan)?;
        let pid = warm.conn.connection_id() as i32;
        drop(warm);
        callgrind::exit_dump_ir(dump_dir, pid, DUMP_WAIT)?;
    }
    super::cost::attempts(|attempt| {
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
                ir: callgrind::exit_dump_ir(dump_dir, pid, DUMP_WAIT)?,
                // A backend has one thread.
                thread: 1,
            });
        }
        Ok(counted)
    })
}
