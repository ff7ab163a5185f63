//! The server's own command-line client for a study's `[dataset] sql` files: `mariadb` or
//! `mysql` for the MySQL family, `psql` for PostgreSQL, so that `DELIMITER`, `COPY` and dump
//! files work as they do by hand. The tree's own client where it ships one, else the
//! system's.

use crate::server::{Binaries, Sandbox};
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The first of `names` in the tree's own directory of `bin`, then in the system's.
pub(super) fn find(bin: &Binaries, names: &[&str], system_dirs: &[&str]) -> Result<PathBuf> {
    let tree = bin.server.parent().map(Path::to_path_buf);
    let mut dirs: Vec<PathBuf> = tree.into_iter().collect();
    dirs.extend(system_dirs.iter().map(PathBuf::from));
    for d in &dirs {
        for n in names {
            let p = d.join(n);
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    bail!(
        "no command-line client ({}) in {}: install the server's client package",
        names.join(" or "),
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The client for `sb`'s server, logged in as its administrator, into `database`; reading
/// SQL on its standard input and stopping at the first error.
pub fn command(sb: &Sandbox, database: &str) -> Result<Command> {
    let bin = sb.binaries();
    super::of(bin.flavour).sql_client(sb, database)
}
