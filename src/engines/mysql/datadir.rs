//! A MariaDB or MySQL datadir made by the tree's own initialiser: `mariadb-install-db`, or
//! `mysqld --initialize-insecure`; server::datadir caches one per binary and copies it.

use crate::server::account::Account;
use crate::server::{Binaries, Flavour, ServerOption};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// Whether `data` holds a MySQL-family datadir.
pub fn is_initialised(data: &Path) -> bool {
    data.join("mysql").is_dir()
}

/// Create a datadir with the tree's own initialiser.
pub fn initialise(
    bin: &Binaries,
    init_opts: &[ServerOption],
    data: &Path,
    server: Option<&Account>,
) -> Result<()> {
    let mut cmd: Command;
    match bin.flavour {
        // engines::of sends PostgreSQL trees to engines::postgres.
        Flavour::Postgres => bail!("{} is not a MySQL-family server", bin.server.display()),
        Flavour::MariaDb => {
            let install = bin
                .install_db
                .as_ref()
                .context("no mariadb-install-db for this tree")?;
            cmd = bin.command(install);
            cmd.arg("--no-defaults");
            if let Some(b) = &bin.basedir {
                cmd.arg(format!("--basedir={}", b.display()));
            }
            cmd.arg(format!("--datadir={}", data.display()))
                .arg("--auth-root-authentication-method=normal")
                .arg("--skip-test-db")
                .arg("--skip-name-resolve");
        }
        Flavour::MySql => {
            cmd = bin.command(&bin.server);
            cmd.arg("--no-defaults")
                .arg("--initialize-insecure")
                .arg(format!("--datadir={}", data.display()));
            if let Some(b) = &bin.basedir {
                cmd.arg(format!("--basedir={}", b.display()));
            }
        }
    }
    // A private tmpdir: concurrent bootstraps sharing /tmp collide on temp-table file names.
    let tmpdir = data.with_file_name("tmp");
    std::fs::create_dir_all(&tmpdir).with_context(|| format!("creating {}", tmpdir.display()))?;
    // As root, the datadir belongs to the account its servers will run as.
    if let Some(acc) = server {
        if let Some(parent) = data.parent() {
            crate::server::account::give(parent, acc)?;
            crate::server::account::check_reachable(parent, acc)?;
        }
        cmd.arg(format!("--user={}", acc.name));
    }
    cmd.arg(format!("--tmpdir={}", tmpdir.display()));
    let mut opts = init_opts.to_vec();
    if bin.flavour == Flavour::MariaDb && !opts.iter().any(|o| o.key == "innodb_log_file_size") {
        // Match the sandbox default so the first start does not resize the redo log.
        opts.push(ServerOption::new("innodb_log_file_size", "64M"));
    }
    for o in &opts {
        cmd.arg(o.to_arg());
    }
    let out = cmd.output().with_context(|| {
        format!(
            "running the datadir initialiser for {}",
            crate::engines::label(bin)
        )
    })?;
    if !out.status.success() || !data.join("mysql").is_dir() {
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = text.lines().filter(|l| l.contains("ERROR")).collect();
        let why = if errors.is_empty() {
            crate::server::errorlog::tail(&text, 12)
        } else {
            errors.join("\n")
        };
        bail!(
            "initialising a datadir at {} with {} failed ({}): {}",
            data.display(),
            crate::engines::label(bin),
            out.status,
            why
        );
    }
    Ok(())
}
