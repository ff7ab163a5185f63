//! The options of a run that every `psbench bench` workload shares, in sysbench's names:
//! threads, time, events, warm-up, rate, intervals, percentiles, seed, output.

use crate::driver::RunOptions;
use crate::results::CpuList;
use crate::workloads::sysbench::options::parse_switch;
use clap::{ArgAction, Args};
use std::path::PathBuf;

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
