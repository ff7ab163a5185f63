//! Stage 2b: the load generator. It owns threads, schedules, timing, histograms and
//! counters; a workload (stage 2a) only issues the statements of one transaction. It prints
//! nothing: the `bench` command's output is console/'s, from a [`Watch`] and the report.
//!
//! One OS thread and one connection per client (docs/sysbench-compat.md#open-loop---rate), closed loop by
//! default, or an open-loop Poisson schedule under `--rate` whose latency counts from each
//! transaction's intended start (decision 6); HDR histograms per second per transaction
//! class, merged at the end (decision 7).

mod collector;
mod cpu;
mod event_loop;
mod gate;
mod interval;
mod latency;
pub mod limits;
mod options;
mod placement;
mod reconnect;
mod run;
mod schedule;
mod series;
mod shared;
mod watch;

pub use collector::ThreadTotals;
pub use cpu::CpuUsage;
pub use interval::{ClassStats, IntervalStats};
pub use latency::{Latencies, LatencySummary, STANDARD_PERCENTILES};
pub use options::{check_percentiles, resolve_seed, RunOptions};
pub use placement::{place_this_thread, Placed};
pub use run::{measure, RunReport};
pub use watch::{Unwatched, Watch, Window};
