//! Cost mode: instructions the server executes per transaction, row or query, counted under
//! `valgrind --tool=callgrind` (docs/cost-mode.md).
//!
//! The caller starts the server under a [`Counter`]'s wrapper and hands over a [`Target`]: the
//! running server, how to reach it and where its dumps go. The counter is the caller's
//! choice, named for how it counts: [`ServingThread`] counts the server thread behind one
//! long-lived connection through `callgrind_control`; [`ExitDumps`] counts each connection's
//! server process from the dump it writes when it exits. Either way the windows of a
//! [`Plan`] are counted and checked against each other ([`TOLERANCE`]), and measured once
//! more when they disagree.

mod callgrind;
mod counter;
mod dumps;
mod exit_dump_writes;
mod exit_dumps;
pub mod ibench;
mod serving_thread;
mod serving_thread_writes;
mod session;
mod target;
mod windows;
mod write_steps;

pub use counter::{measure, measure_with, BeforeWindow, Counter};
pub use exit_dumps::ExitDumps;
pub use serving_thread::ServingThread;
pub use target::Target;
pub use windows::{agree, marginal_estimates, CostMeasurement, Plan, Window, ATTEMPTS, TOLERANCE};
pub use write_steps::WRITE_TOLERANCE;
