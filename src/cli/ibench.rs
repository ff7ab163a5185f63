//! `psbench bench insert-benchmark [--steps LIST] [options]`: the Insert Benchmark against
//! any MySQL-family server, each step printed and optionally written as a bench document.

use super::bench::ConnectionArgs;
use crate::ibench::{self, Target};
use crate::workloads::ibench::{parse_steps, IbenchOptions, ALL_STEPS};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct IbenchArgs {
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
}

fn steps_help() -> String {
    format!(
        "Steps to run in order, comma-separated, or `all` ({}); qrR/qpR for another rate R",
        ALL_STEPS.join(",")
    )
}

pub fn run(args: IbenchArgs) -> Result<()> {
    args.ibench.validate()?;
    if let Some(p) = args
        .percentile
        .iter()
        .find(|p| !(**p > 0.0 && **p <= 100.0))
    {
        return Err(crate::error::usage(format!(
            "--percentile values must be in (0, 100] (got {p})"
        )));
    }
    let steps = parse_steps(&args.steps, &args.ibench)?;
    let endpoint = args.connection.endpoint()?;
    let seed = crate::driver::resolve_seed(args.rand_seed);
    let mut out = std::io::stdout();
    println!(
        "Insert Benchmark at {}: {} client(s), X={} Y={} Z={} rows per table, query steps {} s, random seed {seed}\n",
        endpoint.describe(),
        args.ibench.clients,
        args.ibench.rows,
        args.ibench.rows_i1,
        args.ibench.rows_i2,
        args.ibench.query_seconds
    );
    let target = Target {
        endpoint: &endpoint,
        opts: &args.ibench,
        percentiles: &args.percentile,
    };
    let command_line: Vec<String> = std::env::args().collect();
    ibench::run_sequence(
        &target,
        &steps,
        seed,
        args.json_dir.as_deref(),
        &command_line,
        &mut out,
    )?;
    Ok(())
}
