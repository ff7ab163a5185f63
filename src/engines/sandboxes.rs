//! Sandboxes by name, for the `sandbox` command: list them, stop or remove one, keep a
//! snapshot of one's datadir, find a snapshot to start from. Only processes psbench started
//! are stopped, by their recorded pid and start time.

use crate::error::usage;
use crate::results::Flavour;
use crate::server::datadir;
use crate::server::sandbox::{validate_name, STOP_GRACE};
use crate::server::{Home, SandboxState};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The state recorded in the sandbox directory `dir`, with what a state written before psbench
/// recorded them lacks (its administrator, protocol and stop signal) taken from its engine.
pub fn load(dir: &Path) -> Result<SandboxState> {
    let mut st = SandboxState::load(dir)?;
    let launcher = super::of(st.binaries.flavour).launcher();
    if st.superuser.is_empty() {
        st.superuser = launcher.superuser().to_string();
        st.protocol = launcher.protocol();
    }
    if st.stop_signal.is_none() {
        st.stop_signal = Some(launcher.stop_signal() as i32);
    }
    Ok(st)
}

/// How to reach a started sandbox, for a person: where its socket, port, datadir and log are,
/// and the commands that connect to it.
pub fn describe(st: &SandboxState) -> Vec<String> {
    let mut lines = vec![
        format!("  port    {} (127.0.0.1)", st.port),
        format!("  datadir {}", st.datadir.display()),
        format!("  log     {}", st.error_log.display()),
    ];
    match st.binaries.flavour {
        Flavour::Postgres => {
            lines.insert(
                0,
                format!("  socket  {}/.s.PGSQL.{}", st.socket.display(), st.port),
            );
            lines.push(format!(
                "  connect PGPASSFILE={} psql -h 127.0.0.1 -p {} -U postgres   (the password is in that 0600 file)",
                crate::server::access::pgpass_file(&st.dir).display(),
                st.port
            ));
            lines.push(format!(
                "  local   psql -h {} -p {} -U postgres   (over the socket, which only this sandbox's owner can reach)",
                st.socket.display(),
                st.port
            ));
        }
        Flavour::MariaDb | Flavour::MySql => {
            lines.insert(0, format!("  socket  {}", st.socket.display()));
            lines.push(format!(
                "  connect mariadb --defaults-file={}   (root over TCP; the password is in that 0600 file)",
                st.client_defaults().display()
            ));
            lines.push(format!(
                "  local   mariadb --no-defaults -uroot -S {}   (over the socket, which only this sandbox's owner can reach)",
                st.socket.display()
            ));
        }
    }
    lines.push(format!("  stop    psbench sandbox stop {}", st.name));
    lines
}

/// The version as `sandbox start` and `sandbox list` show it: MySQL-family servers' whole
/// `--version` string, PostgreSQL's label.
pub fn version_shown(st: &SandboxState) -> String {
    match st.binaries.flavour {
        Flavour::Postgres => super::label(&st.binaries),
        Flavour::MariaDb | Flavour::MySql => st.binaries.version.clone(),
    }
}

/// Every sandbox under `home`, with whether its server is running.
pub fn list(home: &Home) -> Vec<SandboxState> {
    let mut v: Vec<SandboxState> = std::fs::read_dir(home.sandboxes())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| load(&e.path()).ok())
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// Stop a detached sandbox by name, by its recorded pid and start time only.
/// Returns false when it was not running.
pub fn stop_by_name(home: &Home, name: &str) -> Result<bool> {
    validate_name(name)?;
    let dir = home.sandbox_dir(name);
    let mut state = load(&dir).map_err(|_| {
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
    let state = load(&dir).map_err(|_| {
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
    let state =
        load(&home.sandbox_dir(name)).map_err(|_| usage(format!("no sandbox named '{name}'")))?;
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
