//! `bench WORKLOAD prepare|run|cleanup`: sysbench's lines around the driver's work, and the
//! bench document of a run.

use super::bench_document::{self, RunContext};
use super::final_report;
use super::header;
use super::sysbench_text::{interval_line, queue_line};
use crate::connection::Endpoint;
use crate::driver::{self, resolve_seed, RunOptions, RunReport, Watch, Window};
use crate::error::usage;
use crate::results::write_atomically;
use crate::workloads::Workload;
use anyhow::{Context, Result};
use std::io::Write;

/// `bench WORKLOAD run`: measure with sysbench's header and interval lines, print its final
/// report and psbench's lines, and write the bench document when asked.
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
    let report = driver::measure(workload, endpoint, opts, seed, &mut Printer { out })?;
    write!(out, "{}", final_report::final_report(&report, opts))?;
    out.flush()?;
    if let Some(path) = &opts.json {
        let doc = bench_document::document(&report, opts, ctx);
        write_atomically(path, &doc)?;
    }
    Ok(report)
}

/// Prints sysbench's lines as the run reaches them.
struct Printer<'a> {
    out: &'a mut dyn Write,
}

impl Watch for Printer<'_> {
    fn starting(&mut self) {
        let _ = writeln!(self.out, "Initializing worker threads...\n");
    }

    fn started(&mut self) {
        let _ = writeln!(self.out, "Threads started!\n");
        let _ = self.out.flush();
    }

    fn window(&mut self, w: &Window) {
        let _ = writeln!(self.out, "{}", interval_line(w));
        if let Some((queue, concurrency)) = w.queue {
            let _ = writeln!(
                self.out,
                "{}",
                queue_line(w.elapsed_label_s, queue, concurrency)
            );
        }
        let _ = self.out.flush();
    }
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
