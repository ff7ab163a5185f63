//! Finding a PostgreSQL binary tree: Debian's (`/usr/lib/postgresql/<major>`) or any tree
//! with `bin/postgres` and `bin/initdb` (Maven Central's embedded-postgres trees ship their
//! own `lib/`).

use crate::error::usage;
use crate::server::{Binaries, Flavour};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The newest of the system's PostgreSQL servers.
pub fn system() -> Result<Binaries> {
    from_tree(&system_tree()?)
}

/// The PostgreSQL tree at `dir`, with its version as `postgres --version` prints it.
pub fn from_tree(dir: &Path) -> Result<Binaries> {
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
        lib_dirs: lib_dirs(&dir),
        plugin_dir: None,
    };
    let text = b.version_text()?;
    b.version = parse_version(&text).ok_or_else(|| {
        usage(format!(
            "{} --version did not print a PostgreSQL version (got: {})",
            b.server.display(),
            text.trim()
        ))
    })?;
    Ok(b)
}

/// True when `dir` looks like a PostgreSQL tree.
pub fn is_tree(dir: &Path) -> bool {
    dir.join("bin/postgres").is_file()
}

/// The newest of the system's PostgreSQL installations (Debian's postgresql package).
pub fn system_tree() -> Result<PathBuf> {
    let root = Path::new("/usr/lib/postgresql");
    let mut majors: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let major = e.file_name().to_str()?.parse::<u32>().ok()?;
            is_tree(&e.path()).then(|| (major, e.path()))
        })
        .collect();
    majors.sort();
    majors.pop().map(|(_, p)| p).ok_or_else(|| {
        usage(
            "no PostgreSQL server found (looked in /usr/lib/postgresql/*/bin/postgres): \
             install postgresql (bash scripts/setup.sh does), pass --basedir PATH to \
             psbench run or psbench sandbox start, or set basedir in the study file's variant",
        )
    })
}

/// The directories a tree's programs need on the library path: Debian's trees find their
/// libraries through the system; Maven's ship them in lib/.
pub fn lib_dirs(dir: &Path) -> Vec<PathBuf> {
    if dir.join("lib/libpq.so.5").exists() {
        vec![dir.join("lib")]
    } else {
        Vec::new()
    }
}

/// From `postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)`: `15.18`.
pub fn parse_version(text: &str) -> Option<String> {
    let after = text.lines().find_map(|l| l.split("(PostgreSQL) ").nth(1))?;
    let v = after.split_whitespace().next()?;
    v.starts_with(|c: char| c.is_ascii_digit())
        .then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_debian_and_plain_versions() {
        assert_eq!(
            super::parse_version("postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n"),
            Some("15.18".into())
        );
        assert_eq!(
            super::parse_version("postgres (PostgreSQL) 17.2\n"),
            Some("17.2".into())
        );
        assert_eq!(super::parse_version("mariadbd  Ver 10.11"), None);
    }
}
