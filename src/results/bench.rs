//! The document of one `bench` run (`--json FILE`, and each Insert Benchmark step with
//! `--json-dir`): the options, totals, client CPU and the per-second series. The driver
//! measures, console/ fills the document; docs/sysbench-compat.md describes it.

use super::insert_benchmark::StepResult;
pub use super::latency::LatencySummary;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub const FORMAT: &str = "psbench-bench";
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchDocument {
    pub format: String,
    pub version: u32,
    pub psbench_version: String,
    pub workload: String,
    pub server_version: String,
    pub seed: u64,
    /// Where the server was reached (never a password).
    pub endpoint: EndpointRecord,
    pub options: RunOptions,
    pub workload_options: serde_json::Value,
    /// The command line, with any password replaced by `***`.
    pub command_line: Vec<String>,
    pub totals: Totals,
    pub client_cpu: ClientCpu,
    pub intervals: Vec<IntervalRecord>,
    /// The Insert Benchmark's per-step figures (rows, background rate, original buckets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insert_benchmark: Option<StepResult>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub time_s: f64,
    pub threads: usize,
    pub transactions: u64,
    pub tps: f64,
    pub queries: QueryRates,
    pub errors: u64,
    pub reconnects: u64,
    pub latency_ms: LatencySummary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_lag_ms: Option<LatencySummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_not_started: Option<u64>,
    pub threads_fairness: Fairness,
    /// Each transaction class on its own (one entry for a sysbench workload).
    pub classes: Vec<ClassTotals>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassTotals {
    pub name: String,
    pub transactions: u64,
    pub per_sec: f64,
    pub latency_ms: LatencySummary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_lag_ms: Option<LatencySummary>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fairness {
    pub events: Vec<u64>,
    pub execution_time_s: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientCpu {
    #[serde(flatten)]
    pub usage: CpuUsage,
    pub us_per_transaction: f64,
    pub us_per_query: f64,
}

/// Where a run reached its server, as recorded: the endpoint without its password.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndpointRecord {
    pub host: String,
    pub port: u16,
    pub socket: Option<PathBuf>,
    pub user: String,
    pub database: Option<String>,
}

/// Options of `bench ... run` that belong to the driver (the workload has its own).
/// Numbers are kept as typed by the user so that `validate` can say what is wrong.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunOptions {
    pub threads: i64,
    /// Seconds; 0 = no time limit.
    pub time: f64,
    /// Transactions over all threads; 0 = no limit.
    pub events: i64,
    /// Seconds run before `time` starts, left out of every statistic.
    pub warmup_time: f64,
    /// Transactions per second over all threads (open loop); 0 = closed loop.
    pub rate: f64,
    /// Seconds between interval lines; 0 = none.
    pub report_interval: i64,
    /// Percentiles for the interval line (the first) and the final report (all).
    pub percentiles: Vec<f64>,
    /// 0 = draw one from the OS (the seed used is printed and recorded).
    pub rand_seed: u64,
    /// Print the latency histogram before the final report.
    pub histogram: bool,
    /// Where to write the JSON result document.
    pub json: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuUsage {
    pub user_s: f64,
    pub sys_s: f64,
    pub voluntary_context_switches: u64,
    pub involuntary_context_switches: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntervalRecord {
    /// Seconds since statistics started, at the end of this interval.
    pub t: f64,
    /// Its length in seconds (1 except for a late tick or the last, partial interval).
    pub duration: f64,
    pub threads: usize,
    pub transactions: u64,
    pub tps: f64,
    pub queries: QueryRates,
    pub errors: u64,
    pub reconnects: u64,
    /// Open loop only: arrivals waiting for a thread, and transactions executing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_length: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    /// Milliseconds from intended start (open loop) or start (closed loop) to commit.
    pub latency_ms: LatencySummary,
    /// Open loop only: actual start minus intended start, milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_lag_ms: Option<LatencySummary>,
    pub classes: Vec<ClassRecord>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueryRates {
    pub total: u64,
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    pub per_sec: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassRecord {
    pub name: String,
    pub transactions: u64,
    pub latency_ms: LatencySummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_lag_ms: Option<LatencySummary>,
}

impl BenchDocument {
    /// Read a bench document written by `--json` (or `--json-dir`), checking its format.
    pub fn load(path: &std::path::Path) -> anyhow::Result<BenchDocument> {
        let v = super::io::read(path, FORMAT, VERSION)?;
        serde_json::from_value(v).map_err(|e| {
            crate::error::usage(format!(
                "{}: malformed psbench bench document: {e}",
                path.display()
            ))
        })
    }
}
