//! `--json FILE`: the versioned result document of a run, written atomically.

use super::cpu::CpuUsage;
use super::latency::LatencySummary;
use super::options::RunOptions;
use super::run::RunReport;
use super::series::{IntervalRecord, QueryRates};
use crate::server::Endpoint;
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::Path;

pub const FORMAT: &str = "psbench-bench";
pub const VERSION: u32 = 1;

#[derive(Serialize)]
pub struct Document<'a> {
    pub format: &'static str,
    pub version: u32,
    pub psbench_version: &'static str,
    pub workload: &'a str,
    pub server_version: &'a str,
    pub seed: u64,
    /// Where the server was reached; `Endpoint` never serialises its password.
    pub endpoint: &'a Endpoint,
    pub options: &'a RunOptions,
    pub workload_options: &'a serde_json::Value,
    /// The command line, with any password replaced by `***`.
    pub command_line: Vec<String>,
    pub totals: Totals,
    pub client_cpu: ClientCpu,
    pub intervals: &'a [IntervalRecord],
    /// The Insert Benchmark's per-step figures (rows, background rate, original buckets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insert_benchmark: Option<&'a serde_json::Value>,
}

#[derive(Serialize)]
pub struct Totals {
    pub time_s: f64,
    pub threads: usize,
    pub transactions: u64,
    pub tps: f64,
    pub queries: QueryRates,
    pub errors: u64,
    pub reconnects: u64,
    pub latency_ms: LatencySummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_lag_ms: Option<LatencySummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due_not_started: Option<u64>,
    pub threads_fairness: Fairness,
    /// Each transaction class on its own (one entry for a sysbench workload).
    pub classes: Vec<ClassTotals>,
}

#[derive(Serialize)]
pub struct ClassTotals {
    pub name: String,
    pub transactions: u64,
    pub per_sec: f64,
    pub latency_ms: LatencySummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_lag_ms: Option<LatencySummary>,
}

#[derive(Serialize)]
pub struct Fairness {
    pub events: Vec<u64>,
    pub execution_time_s: Vec<f64>,
}

#[derive(Serialize)]
pub struct ClientCpu {
    #[serde(flatten)]
    pub usage: CpuUsage,
    pub us_per_transaction: f64,
    pub us_per_query: f64,
}

pub struct RunContext<'a> {
    pub endpoint: &'a Endpoint,
    pub workload_options: &'a serde_json::Value,
    pub command_line: &'a [String],
}

pub fn document<'a>(r: &'a RunReport, opts: &'a RunOptions, ctx: &RunContext<'a>) -> Document<'a> {
    let t = &r.totals;
    let rate = |n: u64| {
        if r.total_time_s > 0.0 {
            n as f64 / r.total_time_s
        } else {
            0.0
        }
    };
    Document {
        format: FORMAT,
        version: VERSION,
        psbench_version: env!("CARGO_PKG_VERSION"),
        workload: &r.workload,
        server_version: &r.server_version,
        seed: r.seed,
        endpoint: ctx.endpoint,
        options: opts,
        workload_options: ctx.workload_options,
        command_line: redact_password(ctx.command_line),
        totals: Totals {
            time_s: r.total_time_s,
            threads: r.threads,
            transactions: t.events,
            tps: rate(t.events),
            queries: QueryRates {
                total: t.queries.total(),
                reads: t.queries.reads,
                writes: t.queries.writes,
                other: t.queries.other,
                per_sec: rate(t.queries.total()),
            },
            errors: t.errors,
            reconnects: t.reconnects,
            latency_ms: t.latency().summary(&opts.percentiles),
            schedule_lag_ms: r.dropped.map(|_| t.lag().summary(&opts.percentiles)),
            due_not_started: r.dropped,
            threads_fairness: Fairness {
                events: r.per_thread.iter().map(|p| p.events).collect(),
                execution_time_s: r
                    .per_thread
                    .iter()
                    .map(|p| p.busy_ns as f64 / 1e9)
                    .collect(),
            },
            classes: r
                .class_names
                .iter()
                .zip(&t.classes)
                .map(|(name, c)| ClassTotals {
                    name: name.clone(),
                    transactions: c.latency.count(),
                    per_sec: rate(c.latency.count()),
                    latency_ms: c.latency.summary(&opts.percentiles),
                    schedule_lag_ms: (c.lag.count() > 0).then(|| c.lag.summary(&opts.percentiles)),
                })
                .collect(),
        },
        client_cpu: ClientCpu {
            usage: r.cpu,
            us_per_transaction: r.cpu.us_per(t.events),
            us_per_query: r.cpu.us_per(t.queries.total()),
        },
        intervals: &r.seconds,
        insert_benchmark: None,
    }
}

/// Replace the value of `--mysql-password` (`=` or separate argument) with `***`.
pub fn redact_password(args: &[String]) -> Vec<String> {
    const OPT: &str = "--mysql-password";
    const OPT_UNDERSCORE: &str = "--mysql_password";
    let mut out = Vec::with_capacity(args.len());
    let mut hide_next = false;
    for a in args {
        if hide_next {
            out.push("***".to_string());
            hide_next = false;
        } else if a == OPT || a == OPT_UNDERSCORE {
            out.push(a.clone());
            hide_next = true;
        } else if let Some((k, _)) = a
            .split_once('=')
            .filter(|(k, _)| *k == OPT || *k == OPT_UNDERSCORE)
        {
            out.push(format!("{k}=***"));
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// Write next to the target and rename, so a reader never sees half a document.
pub fn write_atomically(path: &Path, doc: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(doc).context("serialising the result document")?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let name = path
        .file_name()
        .with_context(|| format!("--json {}: not a file name", path.display()))?;
    let tmp = dir.unwrap_or(Path::new(".")).join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, text + "\n")
        .with_context(|| format!("writing {}", tmp.display()))
        .map_err(|e| crate::error::usage(format!("{e:#}")))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted_in_both_spellings() {
        let args: Vec<String> = [
            "psbench",
            "--mysql-password",
            "s1",
            "--mysql-password=s2",
            "--mysql_password=s3",
            "--x=y",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let r = redact_password(&args).join(" ");
        assert_eq!(
            r,
            "psbench --mysql-password *** --mysql-password=*** --mysql_password=*** --x=y"
        );
    }

    #[test]
    fn atomic_write_leaves_only_the_target() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        write_atomically(&p, &serde_json::json!({"a": 1})).unwrap();
        let names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["a"], 1);
    }
}
