//! Cost mode: the server runs under `valgrind --tool=callgrind`; after a warm-up, two windows
//! of a fixed number of transactions on one connection are counted, and instructions per
//! transaction = (Ir(N2) − Ir(N1)) / (N2 − N1), which cancels connect and prepare costs.
//! Deterministic (repeats agree within 0.15%), but it sees path length, not contention.

use crate::driver::{self, RunOptions};
use crate::error::usage;
use crate::server::{Endpoint, Sandbox, ServerOption};
use crate::workloads::Workload;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Server options needed under valgrind (spec/pfs-scenarios.md §5.4): io_uring hangs, and the
/// default 8 TB buffer-pool reservation cannot be mapped.
pub fn valgrind_options() -> Vec<ServerOption> {
    vec![
        ServerOption::new("innodb_use_native_aio", "OFF"),
        ServerOption::new("innodb_buffer_pool_size", "64M"),
        ServerOption::new("loose_innodb_buffer_pool_size_max", "64M"),
    ]
}

/// The wrapper that runs the server under callgrind, with instrumentation off until asked.
pub fn wrapper(out_dir: &Path) -> Result<Vec<String>> {
    if which("valgrind").is_none() || which("callgrind_control").is_none() {
        return Err(usage(
            "cost mode needs valgrind and callgrind_control (Debian package valgrind; bash scripts/setup.sh installs it)",
        ));
    }
    Ok(vec![
        "valgrind".into(),
        "--tool=callgrind".into(),
        "--instr-atstart=no".into(),
        // One count per thread: the connection's thread does the transactions; InnoDB's
        // background threads add time-dependent work that would make repeats differ.
        "--separate-threads=yes".into(),
        format!(
            "--callgrind-out-file={}/callgrind.out.%p",
            out_dir.display()
        ),
    ])
}

fn which(prog: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(prog))
            .find(|p| p.is_file())
    })
}

fn control(args: &[&str], pid: i32) -> Result<()> {
    let out = Command::new("callgrind_control")
        .args(args)
        .arg(pid.to_string())
        .output()
        .context("running callgrind_control")?;
    if !out.status.success() {
        bail!(
            "callgrind_control {} {pid} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

fn run_events(workload: &dyn Workload, ep: &Endpoint, events: u32, seed: u64) -> Result<()> {
    let opts = RunOptions {
        threads: 1,
        time: 0.0,
        events: events as i64,
        rand_seed: seed,
        ..RunOptions::default()
    };
    let ctx = driver::RunContext {
        endpoint: ep,
        workload_options: &serde_json::Value::Null,
        command_line: &[],
    };
    let r = driver::run(workload, ep, &opts, &ctx, &mut std::io::sink())?;
    if r.totals.events != events as u64 {
        bail!(
            "cost window ran {} transactions instead of {events}",
            r.totals.events
        );
    }
    Ok(())
}

/// Instructions (Ir) of the busiest thread in the newest callgrind dump of `pid` under `dir`:
/// with `--separate-threads=yes` a dump is one file per thread,
/// `callgrind.out.<pid>.<dump>-<thread>`; the busiest thread is the measured connection's.
fn last_dump_ir(dir: &Path, pid: i32) -> Result<u64> {
    let prefix = format!("callgrind.out.{pid}.");
    let mut dumps: Vec<(u32, PathBuf)> = Vec::new();
    for e in std::fs::read_dir(dir)?.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        let part = rest.split('-').next().unwrap_or("");
        if let Ok(n) = part.parse::<u32>() {
            dumps.push((n, e.path()));
        }
    }
    let newest = dumps
        .iter()
        .map(|(n, _)| *n)
        .max()
        .with_context(|| format!("no callgrind dump of pid {pid} in {}", dir.display()))?;
    let mut best = None;
    for (_, path) in dumps.iter().filter(|(n, _)| *n == newest) {
        let text = std::fs::read_to_string(path)?;
        let ir =
            parse_total_ir(&text).with_context(|| format!("no totals in {}", path.display()))?;
        best = best.max(Some(ir));
    }
    best.with_context(|| format!("empty callgrind dump of pid {pid}"))
}

/// The `totals:` (or `summary:`) line of a callgrind dump; its first number is Ir.
pub fn parse_total_ir(dump: &str) -> Option<u64> {
    ["totals:", "summary:"].iter().find_map(|tag| {
        dump.lines()
            .find_map(|l| l.strip_prefix(tag))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    })
}

/// Measured instructions of one workload on a server already running under callgrind.
pub struct CostMeasurement {
    pub ir: [u64; 2],
    pub ir_per_txn: f64,
}

pub fn measure(
    sandbox: &Sandbox,
    workload: &dyn Workload,
    events: [u32; 2],
    warmup_events: u32,
    dump_dir: &Path,
    seed: u64,
) -> Result<CostMeasurement> {
    let pid = sandbox.pid().context("server not running")?;
    let ep = sandbox
        .admin_endpoint()
        .with_database(Some(super::dataset::DATABASE));
    if warmup_events > 0 {
        run_events(workload, &ep, warmup_events, seed)?;
    }
    control(&["-i", "on"], pid)?;
    let mut ir = [0u64; 2];
    for (i, n) in events.iter().enumerate() {
        control(&["-z"], pid)?;
        run_events(workload, &ep, *n, seed.wrapping_add(i as u64 + 1))?;
        control(&["-d"], pid)?;
        ir[i] = last_dump_ir(dump_dir, pid)?;
    }
    control(&["-i", "off"], pid)?;
    let ir_per_txn = (ir[1] as f64 - ir[0] as f64) / (events[1] - events[0]) as f64;
    Ok(CostMeasurement { ir, ir_per_txn })
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_callgrind_totals() {
        let dump = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 4270512\n\ntotals: 4270512\n";
        assert_eq!(super::parse_total_ir(dump), Some(4270512));
        assert_eq!(super::parse_total_ir("events: Ir\n"), None);
    }
}
