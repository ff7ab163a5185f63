//! A dataset from the user's own files: `[dataset] sql` through the server's own client, then
//! `[dataset] load`'s script, its random values drawn as pgbench draws them.

use crate::driver::{self, RunOptions, Unwatched};
use crate::error::usage;
use crate::results::study::Dataset;
use crate::server::Sandbox;
use crate::workloads::custom::{QueryMode, ScriptFile, ScriptOptions, ScriptWorkload};
use anyhow::{Context, Result};
use std::io::Read;
use std::path::Path;
use std::process::Stdio;

/// The file's SQL, decompressed when it ends in `.gz` or `.xz`.
fn reader(path: &Path) -> Result<Box<dyn Read>> {
    let f = std::fs::File::open(path)
        .map_err(|e| usage(format!("dataset sql {}: {e}", path.display())))?;
    let name = path.to_string_lossy();
    Ok(if name.ends_with(".gz") {
        Box::new(flate2::read::MultiGzDecoder::new(f))
    } else if name.ends_with(".xz") {
        Box::new(liblzma::read::XzDecoder::new(f))
    } else {
        Box::new(f)
    })
}

/// Run each `sql` file through the server's own client into `database`, in order; a file
/// the client refuses is the user's mistake, named with the client's last words.
pub fn run_sql(
    sb: &Sandbox,
    d: &Dataset,
    database: &str,
    log: &mut dyn std::io::Write,
) -> Result<()> {
    for file in &d.sql {
        let path = Path::new(file);
        writeln!(log, "loading {}", path.display())?;
        let mut cmd = crate::engines::sql_client::command(sb, database)?;
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {:?}", cmd.get_program()))?;
        let mut input = reader(path)?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        // A client that stops at an error closes its input: its words say why.
        let copied = std::io::copy(&mut input, &mut stdin);
        drop(stdin);
        let out = child.wait_with_output()?;
        if !out.status.success() {
            let words = String::from_utf8_lossy(&out.stderr);
            let last = words
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            return Err(usage(format!(
                "dataset sql {}: {} refused it: {}",
                path.display(),
                Path::new(cmd.get_program()).display(),
                last.trim()
            )));
        }
        if let Err(e) = copied {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                return Err(usage(format!("dataset sql {}: {e}", path.display())));
            }
        }
    }
    Ok(())
}

/// Fill the tables with `load`'s script: `events` transactions over `threads` connections.
pub fn run_load(
    sb: &Sandbox,
    d: &Dataset,
    database: &str,
    seed: u64,
    log: &mut dyn std::io::Write,
) -> Result<()> {
    let Some(load) = &d.load else {
        return Ok(());
    };
    writeln!(
        log,
        "filling the tables with {} ({} transactions, {} connections)",
        load.script, load.events, load.threads
    )?;
    let file = ScriptFile::read(&load.script, Path::new(""))?;
    let opts = ScriptOptions {
        mode: QueryMode::Simple,
        vars: Vec::new(),
        per_statement: false,
        abort_on_failure: true,
    };
    let workload = ScriptWorkload::new("load", &[file], opts)?;
    let run = RunOptions {
        threads: i64::from(load.threads.max(1)),
        time: 0.0,
        events: load.events as i64,
        rand_seed: seed,
        ..RunOptions::default()
    };
    let ep = sb.admin_endpoint().with_database(Some(database));
    let report = driver::measure(&workload, &ep, &run, seed, &mut Unwatched)
        .context("filling the tables with the dataset's load script")?;
    if let Some(why) = workload.outcomes().aborted.first() {
        return Err(usage(format!("dataset load {}: {why}", load.script)));
    }
    writeln!(log, "  {} transactions", report.totals.events)?;
    Ok(())
}
