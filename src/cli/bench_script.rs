//! `psbench bench script FILE[@W]…`: scripts in pgbench's language against a running
//! server, as pgbench runs them (`-f`, `-D`, `--random-seed`, `-M`), with psbench's report.
//! A client that fails stops with pgbench's words, and the command then exits 2.

use super::bench_run_args::RunArgs;
use super::connection_args::ConnectionArgs;
use crate::console::{self, RunContext};
use crate::error::usage;
use crate::workloads::custom::{QueryMode, ScriptFile, ScriptOptions, ScriptWorkload};
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::path::Path;

#[derive(Args, Debug)]
pub struct ScriptArgs {
    /// Script files in pgbench's language, each FILE[@WEIGHT] (weight 1 by default)
    #[arg(value_name = "FILE[@WEIGHT]", required = true)]
    pub scripts: Vec<String>,
    /// A variable for the scripts, NAME=VALUE (pgbench's -D); repeatable
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE")]
    pub define: Vec<String>,
    /// How statements are sent (pgbench's -M): simple, extended (PostgreSQL) or prepared
    #[arg(short = 'M', long, default_value = "simple")]
    pub query_mode: String,
    /// Print each statement's mean latency per script (pgbench's -r)
    #[arg(short = 'r', long)]
    pub per_statement: bool,

    #[command(flatten)]
    pub connection: ConnectionArgs,

    #[command(flatten)]
    pub run: RunArgs,
}

fn defines(args: &[String]) -> Result<Vec<(String, String)>> {
    args.iter()
        .map(|d| match d.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(usage(format!("-D {d}: expected NAME=VALUE"))),
        })
        .collect()
}

pub fn command(args: ScriptArgs) -> Result<()> {
    let endpoint = args.connection.endpoint()?;
    let files = args
        .scripts
        .iter()
        .map(|s| ScriptFile::read(s, Path::new("")))
        .collect::<Result<Vec<_>>>()?;
    let mode = QueryMode::parse(&args.query_mode)?;
    if let Some(why) = ScriptWorkload::refused_on(mode, endpoint.dialect()) {
        return Err(usage(why));
    }
    let opts = ScriptOptions {
        mode,
        vars: defines(&args.define)?,
        per_statement: args.per_statement,
        abort_on_failure: true,
    };
    let workload = ScriptWorkload::new("script", &files, opts)?;
    let options = serde_json::json!({
        "scripts": args.scripts,
        "sha256": files.iter().map(ScriptFile::sha256).collect::<Vec<_>>(),
        "define": args.define,
        "query_mode": args.query_mode,
    });
    let command_line: Vec<String> = std::env::args().collect();
    let ctx = RunContext {
        endpoint: &endpoint,
        workload_options: &options,
        command_line: &command_line,
    };
    let mut out = std::io::stdout();
    let report = console::sysbench::run(&workload, &endpoint, &args.run.options(), &ctx, &mut out)?;
    if workload.classes().len() > 1 {
        writeln!(out, "Per script:")?;
        for (name, c) in workload.classes().iter().zip(&report.totals.classes) {
            writeln!(
                out,
                "    {name:<30} {:>10} transactions ({:.2} per sec.)  p95 {:.2} ms",
                c.latency.count(),
                c.latency.count() as f64 / report.total_time_s.max(1e-9),
                c.latency.percentile_ms(95.0)
            )?;
        }
    }
    let outcomes = workload.outcomes();
    if args.per_statement {
        for (i, (script, _)) in workload.scripts().iter().enumerate() {
            writeln!(out, "Statement latencies in milliseconds, {}:", script.name)?;
            for (command, (n, total)) in outcomes.timings[i].iter().enumerate() {
                let mean = if *n > 0 {
                    total.as_secs_f64() * 1e3 / *n as f64
                } else {
                    0.0
                };
                writeln!(out, "    {mean:>10.3}  {}", script.command_text(command))?;
            }
        }
    }
    if !outcomes.aborted.is_empty() {
        for a in &outcomes.aborted {
            eprintln!("{a}");
        }
        return Err(crate::error::usage(format!(
            "{} client(s) aborted: the run was cut short, and the results above are incomplete",
            outcomes.aborted.len()
        )));
    }
    Ok(())
}
