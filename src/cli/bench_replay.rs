//! `psbench bench replay LOG`: a captured log replayed against a running server, a
//! connection per captured session, at the recorded pace or as fast as the server answers.
//! What it prints and writes names statements by kind and line, never by their text.

use super::connection_args::ConnectionArgs;
use crate::driver::{self, RunOptions, RunReport, Unwatched};
use crate::error::usage;
use crate::workloads::replay::{Capture, Failures, Pace, ReplayWorkload};
use crate::workloads::Workload;
use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The captured log: a MySQL or MariaDB general or slow query log, or a PostgreSQL
    /// stderr log or csvlog taken with log_statement = 'all'
    #[arg(value_name = "LOG")]
    pub log: String,
    /// recorded: each statement at its recorded time from the start (divided by --speed);
    /// fast: each session's statements as fast as the server answers
    #[arg(long, default_value = "recorded")]
    pub pace: String,
    /// With --pace recorded: how many times faster than recorded
    #[arg(long)]
    pub speed: Option<f64>,
    /// Write the figures as JSON to this file
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    #[command(flatten)]
    pub connection: ConnectionArgs,
}

pub fn command(args: ReplayArgs) -> Result<()> {
    let endpoint = args.connection.endpoint()?;
    let pace = Pace::parse(&args.pace, args.speed)?;
    if args.speed.is_some() && pace == Pace::Fast {
        return Err(usage("--speed goes with --pace recorded"));
    }
    let capture = Capture::read(&args.log)?;
    if let Some(why) = Capture::refused_on(capture.format, endpoint.dialect()) {
        return Err(usage(format!("{}: {why}", args.log)));
    }
    let mut out = std::io::stdout();
    writeln!(
        out,
        "Replaying {}: {}, {} session(s), {} statement(s), {} log entries not replayed{}; pace {}",
        args.log,
        capture.format.name(),
        capture.sessions.len(),
        capture.statements(),
        capture.skipped,
        capture
            .span_s()
            .map_or(String::new(), |s| format!(", recorded over {s:.2} s")),
        pace_words(pace)
    )?;
    let workload = ReplayWorkload::new("replay", std::sync::Arc::new(capture), pace);
    let opts = RunOptions {
        threads: workload.sessions() as i64,
        time: 0.0,
        events: 0,
        percentiles: vec![95.0],
        ..RunOptions::default()
    };
    let report = driver::measure(&workload, &endpoint, &opts, 0, &mut Unwatched)
        .context("replaying the log")?;
    let failures = workload.take_failures();
    let figures = Figures::of(&workload, &report, &failures);
    figures.print(&mut out)?;
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&figures.json(&args, &workload, pace))?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

fn pace_words(pace: Pace) -> String {
    match pace {
        Pace::Recorded { speed } => format!("recorded at speed {speed}"),
        Pace::Fast => "fast".into(),
    }
}

/// One kind's figures.
struct KindRow {
    kind: String,
    statements: u64,
    per_s: f64,
    p50: f64,
    p95: f64,
    p99: f64,
    failed: u64,
}

struct Figures {
    seconds: f64,
    statements: u64,
    failed: u64,
    client_cpu_us: f64,
    rows: Vec<KindRow>,
    failed_lines: Vec<(String, usize)>,
}

impl Figures {
    fn of(w: &ReplayWorkload, r: &RunReport, f: &Failures) -> Figures {
        let seconds = r.total_time_s.max(1e-9);
        let rows: Vec<KindRow> = w
            .class_names()
            .into_iter()
            .zip(&r.totals.classes)
            .map(|(kind, c)| KindRow {
                statements: c.latency.count(),
                per_s: c.latency.count() as f64 / seconds,
                p50: c.latency.percentile_ms(50.0),
                p95: c.latency.percentile_ms(95.0),
                p99: c.latency.percentile_ms(99.0),
                failed: c.errors,
                kind,
            })
            .collect();
        let statements = r.totals.events;
        let failed: u64 = rows.iter().map(|k| k.failed).sum();
        let sent = (statements + failed).max(1) as f64;
        Figures {
            seconds,
            statements,
            failed,
            client_cpu_us: r.cpu.total_s() * 1e6 / sent,
            rows,
            failed_lines: f
                .lines
                .iter()
                .map(|(k, l)| (k.name().to_string(), *l))
                .collect(),
        }
    }

    fn print(&self, out: &mut dyn Write) -> Result<()> {
        writeln!(
            out,
            "Replayed {} statement(s) in {:.2} s: {:.1} statements/s, client CPU {:.1} µs per statement",
            self.statements,
            self.seconds,
            self.statements as f64 / self.seconds,
            self.client_cpu_us
        )?;
        writeln!(
            out,
            "    {:<14} {:>10} {:>10} {:>9} {:>9} {:>9} {:>7}",
            "kind", "statements", "per sec.", "p50 ms", "p95 ms", "p99 ms", "failed"
        )?;
        for k in &self.rows {
            writeln!(
                out,
                "    {:<14} {:>10} {:>10.1} {:>9.3} {:>9.3} {:>9.3} {:>7}",
                k.kind, k.statements, k.per_s, k.p50, k.p95, k.p99, k.failed
            )?;
        }
        if self.failed > 0 {
            let named: Vec<String> = self
                .failed_lines
                .iter()
                .map(|(k, l)| format!("{k} at line {l}"))
                .collect();
            writeln!(
                out,
                "{} statement(s) failed (the data may not be as it was when the capture began): {}{}",
                self.failed,
                named.join(", "),
                if (self.failed as usize) > named.len() { ", …" } else { "" }
            )?;
        }
        Ok(())
    }

    fn json(&self, args: &ReplayArgs, w: &ReplayWorkload, pace: Pace) -> serde_json::Value {
        let c = w.capture();
        serde_json::json!({
            "log": args.log,
            "format": c.format.name(),
            "sessions": c.sessions.len(),
            "pace": pace.name(),
            "speed": match pace { Pace::Recorded { speed } => Some(speed), Pace::Fast => None },
            "seconds": self.seconds,
            "statements": self.statements,
            "statements_per_s": self.statements as f64 / self.seconds,
            "client_cpu_us_per_statement": self.client_cpu_us,
            "failed": self.failed,
            "kinds": self.rows.iter().map(|k| serde_json::json!({
                "kind": k.kind, "statements": k.statements, "per_s": k.per_s,
                "p50_ms": k.p50, "p95_ms": k.p95, "p99_ms": k.p99, "failed": k.failed,
            })).collect::<Vec<_>>(),
            "failed_lines": self.failed_lines.iter()
                .map(|(k, l)| serde_json::json!({ "kind": k, "line": l }))
                .collect::<Vec<_>>(),
        })
    }
}
