//! Finding a MySQL-family binary tree (MariaDB or MySQL) and telling which flavour and
//! version it is.

use crate::error::usage;
use crate::server::{Binaries, Flavour};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

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

/// True when `dir` holds a MySQL-family server program.
pub fn is_tree(dir: &Path) -> bool {
    SERVER_NAMES.iter().any(|n| dir.join(n).is_file())
}

/// The system's server (Debian's `mariadb-server`: /usr/sbin/mariadbd).
pub fn system() -> Result<Binaries> {
    let server = SERVER_NAMES
        .iter()
        .map(|n| Path::new("/usr").join(n))
        .chain(["/usr/local/sbin/mariadbd", "/usr/local/bin/mariadbd"].map(PathBuf::from))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            usage(
                "no server binary found (looked for /usr/sbin/mariadbd and /usr/sbin/mysqld): \
                 install mariadb-server (bash scripts/setup.sh does), pass --basedir PATH to \
                 psbench run or psbench sandbox start, or set basedir in the study file's variant",
            )
        })?;
    let install_db = ["/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"]
        .map(PathBuf::from)
        .into_iter()
        .find(|p| p.is_file());
    finish(None, server, install_db, Vec::new(), None)
}

/// The tree at `dir` (an existing directory).
pub fn from_tree(dir: &Path) -> Result<Binaries> {
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
    finish(Some(dir), server, install_db, lib_dirs, plugin_dir)
}

fn finish(
    basedir: Option<PathBuf>,
    server: PathBuf,
    install_db: Option<PathBuf>,
    lib_dirs: Vec<PathBuf>,
    plugin_dir: Option<PathBuf>,
) -> Result<Binaries> {
    let mut b = Binaries {
        basedir,
        server,
        install_db,
        flavour: Flavour::MariaDb,
        version: String::new(),
        lib_dirs,
        plugin_dir,
    };
    let text = b.version_text()?;
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
        let e = from_tree(d.path()).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(e.to_string().contains("not a server tree"));
    }

    /// A server killed while it printed its version (a job cancelled) is the environment's
    /// failure, exit 1, so the run waits for its own signal; one printing junk is a mistake.
    #[test]
    fn a_version_cut_by_a_signal_is_not_a_usage_error() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("bin")).unwrap();
        let server = d.path().join("bin/mysqld");
        let write = |body: &str| {
            std::fs::write(&server, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&server, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        write("kill -TERM $$");
        let e = from_tree(d.path()).unwrap_err();
        assert!(!crate::error::is_usage(&e), "{e:#}");
        assert!(e.to_string().contains("killed by signal 15"), "{e:#}");
        write("echo hello");
        let e = from_tree(d.path()).unwrap_err();
        assert!(crate::error::is_usage(&e), "{e:#}");
        assert!(
            e.to_string()
                .contains("did not print a MySQL-family version"),
            "{e:#}"
        );
    }
}
