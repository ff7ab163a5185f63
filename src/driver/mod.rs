//! Stage 2b: the load generator. It owns threads, schedules, timing, histograms and
//! counters; a workload (stage 2a) only issues the statements of one transaction.
//!
//! One OS thread and one connection per client (DESIGN.md decision 1), closed loop by
//! default, or an open-loop Poisson schedule under `--rate` whose latency counts from each
//! transaction's intended start (decision 6); HDR histograms per second per transaction
//! class, merged at the end (decision 7).

mod collector;
mod cpu;
mod event_loop;
mod final_report;
mod gate;
mod header;
mod interval;
mod json_doc;
mod latency;
pub mod limits;
mod options;
mod reconnect;
mod run;
mod schedule;
mod series;
mod shared;
mod text_report;

pub use collector::ThreadTotals;
pub use cpu::CpuUsage;
pub use interval::{ClassStats, IntervalStats};
pub use json_doc::{
    document as json_document, redact_password, write_atomically as write_json_atomically,
    RunContext, FORMAT as JSON_FORMAT, VERSION as JSON_VERSION,
};
pub use latency::{Latencies, LatencySummary, STANDARD_PERCENTILES};
pub use options::{resolve_seed, RunOptions};
pub use run::{measure, RunReport};
pub use series::{ClassRecord, IntervalRecord, QueryRates};

use crate::error::usage;
use crate::server::Endpoint;
use crate::workloads::Workload;
use anyhow::{Context, Result};
use std::io::Write;

/// `bench WORKLOAD run`: measure, print sysbench's final report and psbench's lines, and
/// write the JSON document when asked.
pub fn run(
    workload: &dyn Workload,
    endpoint: &Endpoint,
    opts: &RunOptions,
    ctx: &RunContext,
    out: &mut dyn Write,
) -> Result<RunReport> {
    opts.validate_for(workload.ends_by_itself())?;
    let seed = resolve_seed(opts.rand_seed);
    header::print_header(out, opts, seed)?;
    let report = run::measure(workload, endpoint, opts, seed, out)?;
    write!(out, "{}", final_report::final_report(&report, opts))?;
    out.flush()?;
    if let Some(path) = &opts.json {
        let doc = json_doc::document(&report, opts, ctx);
        json_doc::write_atomically(path, &doc)?;
    }
    Ok(report)
}

/// `bench WORKLOAD prepare`: create and load the dataset with `threads` connections.
pub fn prepare(
    workload: &dyn Workload,
    endpoint: &Endpoint,
    threads: i64,
    rand_seed: u64,
    out: &mut dyn Write,
) -> Result<()> {
    if threads < 1 {
        return Err(usage(format!(
            "--threads must be at least 1 (got {threads})"
        )));
    }
    let seed = resolve_seed(rand_seed);
    writeln!(
        out,
        "Preparing {} at {} with {threads} thread(s), random seed {seed}",
        workload.name(),
        endpoint.describe()
    )?;
    workload
        .prepare(endpoint, threads as usize, seed)
        .with_context(|| format!("preparing {}", workload.name()))
}

/// `bench WORKLOAD cleanup`: drop what prepare created.
pub fn cleanup(workload: &dyn Workload, endpoint: &Endpoint, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "Dropping the tables of {} at {}",
        workload.name(),
        endpoint.describe()
    )?;
    workload
        .cleanup(endpoint)
        .with_context(|| format!("cleaning up {}", workload.name()))
}
