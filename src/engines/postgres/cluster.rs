//! A PostgreSQL cluster (datadir) made by the tree's own initdb, run as the account the
//! server will run as (PostgreSQL refuses to run as root). `datadir::pristine` caches one per
//! binary; sandboxes start from copies.

use super::SUPERUSER;
use crate::server::account::{self, Account};
use crate::server::Binaries;
use anyhow::{bail, Context, Result};
use std::path::Path;

/// Whether `data` holds an initialised cluster.
pub fn is_cluster(data: &Path) -> bool {
    data.join("PG_VERSION").is_file()
}

/// Run initdb into `data` (which must not exist; its parent is the account's).
pub fn initdb(bin: &Binaries, data: &Path, server: Option<&Account>) -> Result<()> {
    let initdb = bin.install_db.as_ref().context("no initdb for this tree")?;
    if let Some(acc) = server {
        if let Some(parent) = data.parent() {
            account::give(parent, acc)?;
            account::check_reachable(parent, acc)?;
        }
    }
    let mut cmd = bin.command(initdb);
    cmd.arg("-D")
        .arg(data)
        .args(["-U", SUPERUSER, "-E", "UTF8", "--locale=C", "--no-sync"])
        // Who may connect is decided by the sandbox's own hba file at every start.
        .arg("--auth=trust");
    if let Some(acc) = server {
        account::run_as(&mut cmd, acc);
    }
    let out = cmd
        .output()
        .with_context(|| format!("running {}", initdb.display()))?;
    if !out.status.success() || !is_cluster(data) {
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        bail!(
            "initialising a cluster at {} with {} failed ({}): {}",
            data.display(),
            crate::engines::label(bin),
            out.status,
            crate::server::errorlog::tail(&text, 12)
        );
    }
    Ok(())
}
