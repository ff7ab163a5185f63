//! `psbench bench insert-benchmark [--steps LIST] [options]`: the Insert Benchmark against
//! any MySQL-family server, each step printed and optionally written as a bench document.

use super::connection_args::ConnectionArgs;
use crate::console;
use crate::driver::{check_percentiles, resolve_seed};
use crate::ibench_sequence::Target;
use crate::workloads::ibench::{parse_steps, IbenchOptions, ALL_STEPS};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct InsertBenchmarkArgs {
    /// Steps to run in order, comma-separated, or `all`.
    #[arg(long, default_value = "all", help = steps_help())]
    pub steps: String,

    #[command(flatten)]
    pub connection: ConnectionArgs,

    #[command(flatten)]
    pub ibench: IbenchOptions,

    /// Seed of all random draws; 0 = take one from the OS (it is printed and recorded).
    #[arg(long, alias = "rand_seed", default_value_t = 0)]
    pub rand_seed: u64,
    /// Latency percentiles recorded besides p50/p95/p99/p99.9 (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "95")]
    pub percentile: Vec<f64>,
    /// Write each step's result document (the bench JSON format) to DIR/STEP.json.
    #[arg(long, value_name = "DIR")]
    pub json_dir: Option<PathBuf>,
    /// Run psbench's client threads only on these CPUs (taskset's list: 0-3,8); the server
    /// is not moved.
    #[arg(long, value_name = "LIST", value_parser = crate::results::CpuList::parse)]
    pub client_cpus: Option<crate::results::CpuList>,
}

fn steps_help() -> String {
    format!(
        "Steps to run in order, comma-separated, or `all` ({}); qrR/qpR for another rate R",
        ALL_STEPS.join(",")
    )
}

pub fn command(args: InsertBenchmarkArgs) -> Result<()> {
    args.ibench.validate()?;
    check_percentiles(&args.percentile)?;
    let steps = parse_steps(&args.steps, &args.ibench)?;
    let endpoint = args.connection.endpoint()?;
    let target = Target {
        endpoint: &endpoint,
        opts: &args.ibench,
        percentiles: &args.percentile,
    };
    let command_line: Vec<String> = std::env::args().collect();
    // This thread starts the client threads, which inherit its CPUs.
    let _placed = (args.client_cpus.as_ref())
        .map(|l| crate::driver::place_this_thread(l, "--client-cpus"))
        .transpose()?;
    console::insert_benchmark(
        &target,
        &steps,
        resolve_seed(args.rand_seed),
        args.json_dir.as_deref(),
        &command_line,
        &mut std::io::stdout(),
    )?;
    Ok(())
}
