//! Driving callgrind: the wrapper the server starts under, and `callgrind_control` commands.

use super::target::Target;
use crate::error::usage;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

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
        // One count per thread: the measured connection's thread does the transactions;
        // InnoDB's background threads add time-dependent work that would make repeats differ.
        "--separate-threads=yes".into(),
        format!(
            "--callgrind-out-file={}/callgrind.out.%p",
            out_dir.display()
        ),
        // The control pipes beside the dumps, in a directory the server's account owns.
        format!("--vgdb-prefix={}", vgdb_prefix(out_dir).display()),
    ])
}

/// As [`wrapper`], with instrumentation on from the start: a process forked by the one
/// valgrind started keeps its parent's state and cannot be reached by `callgrind_control`.
pub fn wrapper_traced_from_start(out_dir: &Path) -> Result<Vec<String>> {
    Ok(wrapper(out_dir)?
        .into_iter()
        .map(|a| {
            if a == "--instr-atstart=no" {
                "--instr-atstart=yes".to_string()
            } else {
                a
            }
        })
        .collect())
}

fn which(prog: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(prog))
            .find(|p| p.is_file())
    })
}

fn vgdb_prefix(out_dir: &Path) -> PathBuf {
    out_dir.join("vgdb")
}

/// `callgrind_control ARGS PID` for a server started with [`wrapper`]`(target.dumps)`.
/// Runs as the account the server runs as (when not psbench's own): valgrind's control pipes
/// answer their own user only.
pub fn control(args: &[&str], target: &Target) -> Result<()> {
    let pid = target.pid;
    let mut cmd = Command::new("callgrind_control");
    if let Some(acc) = &target.account {
        crate::server::account::run_as(&mut cmd, acc);
    }
    let out = cmd
        .arg(format!(
            "--vgdb-prefix={}",
            vgdb_prefix(&target.dumps).display()
        ))
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
