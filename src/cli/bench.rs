//! `psbench bench WORKLOAD prepare|run|cleanup [options]`: sysbench's command line, in
//! sysbench's order and with its option names. Builds the option structs and calls the
//! driver; nothing else.

use super::connection_args::ConnectionArgs;
use super::insert_benchmark::InsertBenchmarkArgs;
use crate::console::{self, RunContext};
use crate::driver::RunOptions;
use crate::results::CpuList;
use crate::workloads::pgbench::PgbenchOptions;
use crate::workloads::sysbench::options::parse_switch;
use crate::workloads::OltpOptions;
use anyhow::Result;
use clap::{ArgAction, Args, ValueEnum};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub insert_benchmark: Option<BenchSub>,

    #[arg(value_name = "WORKLOAD", help = workload_help(), required = true)]
    pub workload: Option<String>,

    /// prepare: create and load the tables; run: measure; cleanup: drop the tables.
    #[arg(value_enum, value_name = "COMMAND", required = true)]
    pub command: Option<BenchCommand>,

    #[command(flatten)]
    pub connection: ConnectionArgs,

    #[command(flatten)]
    pub run: RunArgs,

    #[command(flatten)]
    pub oltp: OltpOptions,

    #[command(flatten)]
    pub pgbench: PgbenchOptions,
}

fn workload_help() -> String {
    crate::workloads::bench_workloads_help()
}

#[derive(clap::Subcommand, Debug)]
pub enum BenchSub {
    /// The Insert Benchmark's steps (l.i0, l.x, l.i1, l.i2, qr100 … qp1000) in order
    #[command(name = "insert-benchmark")]
    InsertBenchmark(Box<InsertBenchmarkArgs>),
    /// Scripts in pgbench's language (FILE[@WEIGHT]…) against a running server
    Script(Box<super::bench_script::ScriptArgs>),
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchCommand {
    Prepare,
    Run,
    Cleanup,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Number of client threads, one connection each.
    #[arg(
        long,
        default_value_t = 1,
        allow_negative_numbers = true,
        help_heading = "Run"
    )]
    pub threads: i64,
    /// Seconds to measure; 0 = no time limit.
    #[arg(
        long,
        default_value_t = 10.0,
        allow_negative_numbers = true,
        help_heading = "Run"
    )]
    pub time: f64,
    /// Transactions to run over all threads; 0 = no limit.
    #[arg(
        long,
        default_value_t = 0,
        allow_negative_numbers = true,
        help_heading = "Run"
    )]
    pub events: i64,
    /// Seconds to run before measuring, left out of every statistic.
    #[arg(
        long,
        alias = "warmup_time",
        default_value_t = 0.0,
        allow_negative_numbers = true,
        help_heading = "Run"
    )]
    pub warmup_time: f64,
    /// Target transactions per second (open loop, Poisson arrivals; latency counts from each
    /// transaction's intended start); 0 = closed loop.
    #[arg(
        long,
        default_value_t = 0.0,
        allow_negative_numbers = true,
        help_heading = "Run"
    )]
    pub rate: f64,
    /// Print an interval line every N seconds; 0 = none.
    #[arg(
        long,
        alias = "report_interval",
        default_value_t = 0,
        allow_negative_numbers = true,
        help_heading = "Run"
    )]
    pub report_interval: i64,
    /// Latency percentiles to print (comma-separated); the first one is in interval lines.
    /// p50/p95/p99/p99.9/max are always printed as well.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "95",
        allow_negative_numbers = true,
        help_heading = "Run"
    )]
    pub percentile: Vec<f64>,
    /// Seed of all random draws; 0 = take one from the OS (it is printed and recorded).
    #[arg(long, aliases = ["rand_seed", "random-seed"], default_value_t = 0, help_heading = "Run")]
    pub rand_seed: u64,
    /// Write the result document (JSON) to this file.
    #[arg(long, help_heading = "Run")]
    pub json: Option<PathBuf>,
    /// Print the latency histogram before the final report.
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = parse_switch,
          action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_missing_value = "on", help_heading = "Run")]
    pub histogram: bool,
    /// Run psbench's client threads only on these CPUs (taskset's list: 0-3,8); the server
    /// is not moved.
    #[arg(long, value_name = "LIST", value_parser = CpuList::parse, help_heading = "Run")]
    pub client_cpus: Option<CpuList>,
}

impl RunArgs {
    pub fn options(&self) -> RunOptions {
        RunOptions {
            threads: self.threads,
            time: self.time,
            events: self.events,
            warmup_time: self.warmup_time,
            rate: self.rate,
            report_interval: self.report_interval,
            percentiles: self.percentile.clone(),
            rand_seed: self.rand_seed,
            histogram: self.histogram,
            json: self.json.clone(),
        }
    }
}

/// `--client-cpus`: this thread, which starts the client threads, placed until dropped.
fn client_placement(cpus: &Option<CpuList>) -> Result<Option<crate::driver::Placed>> {
    cpus.as_ref()
        .map(|l| crate::driver::place_this_thread(l, "--client-cpus"))
        .transpose()
}

pub fn command(args: BenchArgs) -> Result<()> {
    match args.insert_benchmark {
        Some(BenchSub::InsertBenchmark(ib)) => return super::insert_benchmark::command(*ib),
        Some(BenchSub::Script(s)) => return super::bench_script::command(*s),
        None => {}
    }
    let (Some(name), Some(command)) = (&args.workload, args.command) else {
        return Err(crate::error::usage("bench needs a WORKLOAD and a COMMAND"));
    };
    let endpoint = args.connection.endpoint()?;
    let (workload, workload_options) =
        crate::workloads::bench_workload(name, &args.oltp, &args.pgbench, &endpoint)?;
    // Not locked: workloads print progress from their own threads.
    let mut out = std::io::stdout();
    match command {
        BenchCommand::Prepare => console::sysbench::prepare(
            workload.as_ref(),
            &endpoint,
            args.run.threads,
            args.run.rand_seed,
            &mut out,
        ),
        BenchCommand::Cleanup => console::sysbench::cleanup(workload.as_ref(), &endpoint, &mut out),
        BenchCommand::Run => {
            let command_line: Vec<String> = std::env::args().collect();
            let _placed = client_placement(&args.run.client_cpus)?;
            let ctx = RunContext {
                endpoint: &endpoint,
                workload_options: &workload_options,
                command_line: &command_line,
            };
            console::sysbench::run(
                workload.as_ref(),
                &endpoint,
                &args.run.options(),
                &ctx,
                &mut out,
            )
            .map(|_| ())
        }
    }
}
