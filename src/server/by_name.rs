//! Sandboxes by name, for the `sandbox` command: list them, stop or remove one, keep a
//! snapshot of one's datadir, find a snapshot to start from. Only processes psbench started
//! are stopped, by their recorded pid and start time.

use super::datadir;
use super::home::Home;
use super::sandbox::{validate_name, SandboxState, STOP_GRACE};
use crate::error::usage;
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Every sandbox under `home`, with whether its server is running.
pub fn list(home: &Home) -> Vec<SandboxState> {
    let mut v: Vec<SandboxState> = std::fs::read_dir(home.sandboxes())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| SandboxState::load(&e.path()).ok())
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// Stop a detached sandbox by name, by its recorded pid and start time only.
/// Returns false when it was not running.
pub fn stop_by_name(home: &Home, name: &str) -> Result<bool> {
    validate_name(name)?;
    let dir = home.sandbox_dir(name);
    let mut state = SandboxState::load(&dir).map_err(|_| {
        usage(format!(
            "no sandbox named '{name}' under {}",
            home.root().display()
        ))
    })?;
    let Some(id) = state.process.filter(|p| p.is_running()) else {
        return Ok(false);
    };
    if !id.terminate_with(state.stop_signal(), STOP_GRACE, || {}) {
        eprintln!("psbench: sandbox '{name}' did not stop within {STOP_GRACE:?}; killed it");
    }
    state.process = None;
    state.save()?;
    Ok(true)
}

/// Remove a stopped sandbox's directory.
pub fn remove(home: &Home, name: &str) -> Result<()> {
    validate_name(name)?;
    let dir = home.sandbox_dir(name);
    let state = SandboxState::load(&dir).map_err(|_| {
        usage(format!(
            "no sandbox named '{name}' under {}",
            home.root().display()
        ))
    })?;
    if state.is_running() {
        return Err(usage(format!(
            "sandbox '{name}' is running: `psbench sandbox stop {name}` first"
        )));
    }
    std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))
}

/// Stop sandbox `name` cleanly and keep a copy of its datadir as snapshot `snapshot`
/// (replacing one of that name); returns where the copy is.
pub fn snapshot(home: &Home, name: &str, snapshot: &str) -> Result<PathBuf> {
    let state = SandboxState::load(&home.sandbox_dir(name))
        .map_err(|_| usage(format!("no sandbox named '{name}'")))?;
    stop_by_name(home, name)?;
    let dest = home.snapshot_dir(snapshot);
    if dest.exists() {
        std::fs::remove_dir_all(&dest).with_context(|| format!("removing {}", dest.display()))?;
    }
    datadir::copy(&state.datadir, &dest)?;
    Ok(dest)
}

/// The datadir of snapshot `snap`, which must exist.
pub fn snapshot_datadir(home: &Home, snap: &str) -> Result<PathBuf> {
    let dir = home.snapshot_dir(snap);
    if !dir.is_dir() {
        return Err(usage(format!(
            "no snapshot named '{snap}' under {}",
            home.snapshots().display()
        )));
    }
    Ok(dir)
}
