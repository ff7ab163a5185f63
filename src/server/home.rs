//! Where psbench keeps its sandboxes, initialised datadirs and snapshots.

use std::path::{Path, PathBuf};

/// The root directory of psbench's own state: `$PSBENCH_HOME`, else
/// `$XDG_DATA_HOME/psbench`, else `~/.local/share/psbench`; as root, `/var/lib/psbench`
/// (root's home is closed to the unprivileged account its servers run as).
#[derive(Clone, Debug)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Home { root: root.into() }
    }

    pub fn from_env() -> Self {
        if let Some(h) = std::env::var_os("PSBENCH_HOME").filter(|v| !v.is_empty()) {
            return Home::new(h);
        }
        if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
            return Home::new(PathBuf::from(x).join("psbench"));
        }
        if super::account::running_as_root() {
            return Home::new("/var/lib/psbench");
        }
        let home = std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into());
        Home::new(PathBuf::from(home).join(".local/share/psbench"))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// One directory per sandbox, named after it.
    pub fn sandboxes(&self) -> PathBuf {
        self.root.join("sandboxes")
    }

    pub fn sandbox_dir(&self, name: &str) -> PathBuf {
        self.sandboxes().join(name)
    }

    /// Freshly initialised datadirs, one per (binary, init options), copied for new sandboxes.
    pub fn initdb_cache(&self) -> PathBuf {
        self.root.join("initdb")
    }

    /// Datadirs kept after a clean shutdown, to start later sandboxes from a copy.
    pub fn snapshots(&self) -> PathBuf {
        self.root.join("snapshots")
    }

    pub fn snapshot_dir(&self, name: &str) -> PathBuf {
        self.snapshots().join(name)
    }
}
