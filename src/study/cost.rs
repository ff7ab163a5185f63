//! Cost mode: the server runs under `valgrind --tool=callgrind`. One connection is opened and
//! warmed up, then three or more windows run on that same connection, each a whole number of
//! replays of one block of transactions (the first window is one block; every replay draws
//! the same rows). Each window's instructions are those of the server thread that served the
//! connection, matched across dumps. Marginal estimates (instructions between consecutive
//! windows over the transactions between them) cancel whatever is fixed per window and, since
//! every block is the same work, must agree within [`TOLERANCE`]; otherwise the windows are
//! measured once more, and a second disagreement is recorded as `cost unstable` with every
//! estimate (docs/cost-mode.md).

use super::callgrind::{self, Dump};
use crate::connection::{self, Endpoint};
use crate::server::account::Account;
use crate::server::{Sandbox, ServerOption};
use crate::workloads::{EventError, QueryCounters, Workload};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::time::Duration;

pub use super::callgrind::{parse_total_ir, wrapper};

/// How far consecutive marginal estimates may differ (relative to the lower): stated once, in
/// the results schema that records what `unstable` means.
pub const TOLERANCE: f64 = crate::results::COST_TOLERANCE;

/// Measurements of a variant: the first, and one repeat when its estimates disagree.
pub const ATTEMPTS: u32 = 2;

/// Server options needed under valgrind (docs/cost-mode.md): io_uring hangs, and the default
/// 8 TB buffer-pool reservation cannot be mapped. A buffer pool the variant sizes itself stands
/// (its reservation sized to match); otherwise 64 MB, which cost mode's small tables fit.
pub fn valgrind_options(variant: &[ServerOption]) -> Vec<ServerOption> {
    let own = |key: &str| variant.iter().find(|o| o.base_key() == key);
    let mut v = vec![ServerOption::new("innodb_use_native_aio", "OFF")];
    let pool = match own("innodb_buffer_pool_size").and_then(|o| o.value.clone()) {
        Some(size) => size,
        None => {
            v.push(ServerOption::new("innodb_buffer_pool_size", "64M"));
            "64M".to_string()
        }
    };
    if own("innodb_buffer_pool_size_max").is_none() {
        v.push(ServerOption::new(
            "loose_innodb_buffer_pool_size_max",
            &pool,
        ));
    }
    v
}

/// What to count: warm-up transactions, then windows of growing transaction counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Transactions of fresh draws before the block's own untimed replay.
    pub warmup: u32,
    /// Transactions per window: the first is the block, the others whole multiples of it.
    pub windows: Vec<u32>,
}

impl Plan {
    /// Three or more windows, each larger than the one before and a multiple of the first.
    pub fn check(windows: &[u32]) -> std::result::Result<(), String> {
        let growing = windows.windows(2).all(|p| p[1] > p[0]);
        let block = windows.first().copied().unwrap_or(0);
        if windows.len() < 3 || !growing || block == 0 || windows.iter().any(|n| n % block != 0) {
            return Err(format!(
                "cost windows must be three or more growing transaction counts, each a multiple of the first (got {windows:?})"
            ));
        }
        Ok(())
    }

    pub(super) fn block(&self) -> u32 {
        self.windows[0]
    }
}

/// One counted window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// 1 for the first measurement, 2 for its repeat.
    pub attempt: u32,
    pub events: u32,
    /// Instructions of the serving thread during the window.
    pub ir: u64,
    /// That thread's number in callgrind's dumps (the same in every window of an attempt).
    pub thread: u32,
}

impl Window {
    /// The window as the results document records it.
    pub fn recorded(&self) -> crate::results::CostWindow {
        crate::results::CostWindow {
            attempt: self.attempt,
            events: self.events,
            ir: self.ir,
            thread: Some(self.thread),
        }
    }
}

/// A variant's cost on one workload.
#[derive(Clone, Debug, PartialEq)]
pub struct CostMeasurement {
    /// Every window of every attempt, in the order counted.
    pub windows: Vec<Window>,
    /// The last attempt's marginal estimates (instructions per transaction).
    pub estimates: Vec<f64>,
    /// Instructions per transaction between the last attempt's first and last windows.
    pub ir_per_txn: f64,
    /// The estimates disagreed beyond [`TOLERANCE`] in both attempts.
    pub unstable: bool,
}

/// Called before each window's transactions, on the measured connection, with the attempt
/// (1-based) and the window's index. Studies pass nothing; the self-check's test injects a
/// one-off burst of work here.
pub type BeforeWindow<'a> = &'a mut dyn FnMut(u32, usize, &mut connection::Session) -> Result<()>;

/// Measure `workload` on a server already running under callgrind (see [`wrapper`]).
pub fn measure(
    sandbox: &Sandbox,
    workload: &dyn Workload,
    plan: &Plan,
    dump_dir: &Path,
    seed: u64,
) -> Result<CostMeasurement> {
    measure_with(sandbox, workload, plan, dump_dir, seed, &mut |_, _, _| {
        Ok(())
    })
}

pub fn measure_with(
    sandbox: &Sandbox,
    workload: &dyn Workload,
    plan: &Plan,
    dump_dir: &Path,
    seed: u64,
    before_window: BeforeWindow,
) -> Result<CostMeasurement> {
    measure_in(
        sandbox,
        super::dataset::DATABASE,
        workload,
        plan,
        dump_dir,
        seed,
        before_window,
    )
}

/// As [`measure_with`], on a connection to `database` (the Insert Benchmark's queries run on
/// its own database).
pub fn measure_in(
    sandbox: &Sandbox,
    database: &str,
    workload: &dyn Workload,
    plan: &Plan,
    dump_dir: &Path,
    seed: u64,
    before_window: BeforeWindow,
) -> Result<CostMeasurement> {
    Plan::check(&plan.windows).map_err(anyhow::Error::msg)?;
    if sandbox.binaries().flavour == crate::server::Flavour::Postgres {
        let ep = sandbox.admin_endpoint().with_database(Some(database));
        return measure_backends(&ep, workload, plan, dump_dir, seed, before_window);
    }
    let pid = sandbox.pid().context("server not running")?;
    let ep = sandbox.admin_endpoint().with_database(Some(database));
    let mut session = Session::open(workload, &ep, seed)?;
    session.warm_up(plan)?;
    let account = sandbox.server_account();
    attempts(|attempt| {
        count_windows(
            &mut session,
            plan,
            (pid, account),
            dump_dir,
            attempt,
            before_window,
        )
    })
}

/// Up to [`ATTEMPTS`] attempts of `count` (one attempt's windows), until the estimates
/// agree; every window is kept, the estimates and instructions per transaction are the
/// last attempt's.
pub(super) fn attempts(
    mut count: impl FnMut(u32) -> Result<Vec<Window>>,
) -> Result<CostMeasurement> {
    let mut windows = Vec::new();
    let mut estimates = Vec::new();
    let mut ir_per_txn = 0.0;
    for attempt in 1..=ATTEMPTS {
        let counted = count(attempt)?;
        estimates = marginal_estimates(&counted);
        let (first, end) = (&counted[0], &counted[counted.len() - 1]);
        ir_per_txn = (end.ir as f64 - first.ir as f64) / (end.events - first.events) as f64;
        windows.extend(counted);
        if agree(&estimates) {
            break;
        }
    }
    Ok(CostMeasurement {
        unstable: !agree(&estimates),
        windows,
        estimates,
        ir_per_txn,
    })
}

/// One attempt: instrumentation on, then per window zero, run, dump; the serving thread is the
/// one that did the most work over all windows, and every window counts that thread.
fn count_windows(
    session: &mut Session,
    plan: &Plan,
    (pid, account): (i32, Option<&Account>),
    dump_dir: &Path,
    attempt: u32,
    before_window: BeforeWindow,
) -> Result<Vec<Window>> {
    callgrind::control(&["-i", "on"], pid, account, dump_dir)?;
    let mut dumps: Vec<Dump> = Vec::new();
    for (i, n) in plan.windows.iter().enumerate() {
        callgrind::control(&["-z"], pid, account, dump_dir)?;
        before_window(attempt, i, &mut session.conn)?;
        session.run_window(*n, plan.block())?;
        callgrind::control(&["-d"], pid, account, dump_dir)?;
        dumps.push(callgrind::newest_dump(dump_dir, pid)?);
    }
    callgrind::control(&["-i", "off"], pid, account, dump_dir)?;
    let thread = callgrind::busiest_thread(&dumps)
        .with_context(|| format!("no thread of pid {pid} in the dumps"))?;
    plan.windows
        .iter()
        .zip(&dumps)
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

// Cost mode on PostgreSQL (docs/cost-mode.md#postgresql): the postmaster runs under
// callgrind with every forked backend traced from its fork. A backend cannot be reached by
// `callgrind_control`, so each window runs on a connection of its own and its backend's
// instructions come from the dump it writes when it exits, found by `pg_backend_pid()`.
// What a backend does once (its start, authentication, first catalog look-ups, preparing
// the statements, its exit) is the same in every window and cancels in the marginal
// estimates, which must agree as MariaDB's do; a warm-up connection first fills the shared
// caches.

/// How long a backend may take to exit and write its dump under valgrind.
pub(super) const DUMP_WAIT: Duration = Duration::from_secs(120);

fn measure_backends(
    ep: &Endpoint,
    workload: &dyn Workload,
    plan: &Plan,
    dump_dir: &Path,
    seed: u64,
    before_window: BeforeWindow,
) -> Result<CostMeasurement> {
    {
        let mut warm = Session::open(workload, ep, seed)?;
        warm.warm_up(plan)?;
        let pid = warm.conn.connection_id() as i32;
        drop(warm);
        callgrind::exit_dump_ir(dump_dir, pid, DUMP_WAIT)?;
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
                ir: callgrind::exit_dump_ir(dump_dir, pid, DUMP_WAIT)?,
                // A backend has one thread.
                thread: 1,
            });
        }
        Ok(counted)
    })
}

/// Instructions between consecutive windows over the transactions between them.
pub fn marginal_estimates(windows: &[Window]) -> Vec<f64> {
    windows
        .windows(2)
        .map(|p| (p[1].ir as f64 - p[0].ir as f64) / (p[1].events as f64 - p[0].events as f64))
        .collect()
}

/// True when the estimates span at most [`TOLERANCE`] of the lowest.
pub fn agree(estimates: &[f64]) -> bool {
    let lo = estimates.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = estimates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    lo > 0.0 && (hi - lo) / lo <= TOLERANCE
}

/// The measured connection, kept across the warm-up and every window.
pub(super) struct Session<'a> {
    workload: &'a dyn Workload,
    pub(super) conn: connection::Session,
    seed: u64,
}

/// Keeps the warm-up's draws apart from the block's.
const WARMUP_SEED_SALT: u64 = 0x00C0_57AA_3A11_0001;

impl<'a> Session<'a> {
    pub(super) fn open(
        workload: &'a dyn Workload,
        ep: &Endpoint,
        seed: u64,
    ) -> Result<Session<'a>> {
        let conn = ep.session()?;
        Ok(Session {
            workload,
            conn,
            seed,
        })
    }

    /// Fresh draws, then the block once, so that every page and statement the block touches
    /// is in memory and prepared before anything is counted.
    pub(super) fn warm_up(&mut self, plan: &Plan) -> Result<()> {
        self.run(self.seed ^ WARMUP_SEED_SALT, plan.warmup)?;
        self.run(self.seed, plan.block())
    }

    pub(super) fn run_window(&mut self, events: u32, block: u32) -> Result<()> {
        for _ in 0..events / block {
            self.run(self.seed, block)?;
        }
        Ok(())
    }

    /// Run `n` transactions from a worker seeded with `seed` (its statements come from the
    /// connection's statement cache after the first time, so no server work); a deadlock is
    /// re-run as the driver does, anything else ends the measurement (a reconnect would
    /// change the serving thread).
    fn run(&mut self, seed: u64, n: u32) -> Result<()> {
        let mut worker = self
            .workload
            .worker(0, 1, seed, &mut self.conn)
            .context("preparing the measured connection")?;
        let mut counters = QueryCounters::default();
        let mut done = 0;
        while done < n {
            match worker.event(&mut self.conn, &mut counters) {
                Ok(()) => done += 1,
                Err(EventError::Retryable { .. }) => {}
                Err(EventError::ConnectionLost(m)) => {
                    bail!("the measured connection was lost: {m}")
                }
                Err(EventError::Fatal(e)) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(events: u32, ir: u64) -> Window {
        Window {
            attempt: 1,
            events,
            ir,
            thread: 3,
        }
    }

    fn shown(opts: &[ServerOption]) -> Vec<String> {
        opts.iter().map(|o| o.display()).collect()
    }

    #[test]
    fn a_buffer_pool_the_variant_sizes_stands_under_valgrind() {
        assert_eq!(
            shown(&valgrind_options(&[])),
            [
                "innodb_use_native_aio=OFF",
                "innodb_buffer_pool_size=64M",
                "loose_innodb_buffer_pool_size_max=64M"
            ]
        );
        let own = [ServerOption::parse("innodb_buffer_pool_size=2G").unwrap()];
        assert_eq!(
            shown(&valgrind_options(&own)),
            [
                "innodb_use_native_aio=OFF",
                "loose_innodb_buffer_pool_size_max=2G"
            ]
        );
    }

    #[test]
    fn estimates_cancel_the_fixed_part() {
        let ws = [
            w(1000, 250_000 + 42_000_000),
            w(2000, 250_000 + 84_000_000),
            w(3000, 250_000 + 126_000_000),
        ];
        assert_eq!(marginal_estimates(&ws), vec![42_000.0, 42_000.0]);
        assert!(agree(&marginal_estimates(&ws)));
    }

    #[test]
    fn a_burst_in_one_window_disagrees() {
        // 10M extra instructions in the middle window only, as a new connection once carried.
        let ws = [
            w(1000, 42_000_000),
            w(2000, 94_000_000),
            w(3000, 126_000_000),
        ];
        assert!(!agree(&marginal_estimates(&ws)));
        // Within the tolerance: 0.15% apart agrees, 0.25% does not.
        assert!(agree(&[42_000.0, 42_063.0]));
        assert!(!agree(&[42_000.0, 42_105.0]));
    }

    #[test]
    fn plans_need_three_growing_windows() {
        assert!(Plan::check(&[1000, 2000, 3000]).is_ok());
        assert!(Plan::check(&[1000, 3000]).is_err());
        assert!(Plan::check(&[1000, 1000, 3000]).is_err());
        assert!(Plan::check(&[0, 1, 2]).is_err());
        assert!(Plan::check(&[1000, 1500, 3000]).is_err());
    }
}
