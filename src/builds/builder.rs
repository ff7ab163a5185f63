//! Who builds. Compiling needs no privilege, so run as root psbench fetches, unpacks and
//! compiles as its unprivileged account (the one its servers run as), which owns the source,
//! build and cache directories it writes; otherwise as the user.

use crate::server::account::{give, run_as, server_account, Account};
use anyhow::{Context, Result};
use std::path::Path;
use std::process::Command;

pub struct Builder {
    account: Option<Account>,
}

impl Builder {
    pub fn new() -> Result<Self> {
        Ok(Builder {
            account: server_account()?,
        })
    }

    /// `program` to run as the builder, from `dir`, with `home` as its HOME (the account has
    /// none of its own).
    pub fn command(
        &self,
        program: impl AsRef<std::ffi::OsStr>,
        dir: &Path,
        home: &Path,
    ) -> Command {
        let mut cmd = Command::new(program);
        if let Some(acc) = &self.account {
            run_as(&mut cmd, acc);
        }
        cmd.current_dir(dir).env("HOME", home);
        cmd
    }

    /// Create `dir` for the builder to write in, when it is missing: what it holds is the
    /// builder's already.
    pub fn own_dir(&self, dir: &Path) -> Result<()> {
        if dir.is_dir() {
            return Ok(());
        }
        self.own(dir)
    }

    /// Create `dir` (and its parents) for the builder to write in.
    pub fn own(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        if let Some(acc) = &self.account {
            give(dir, acc)?;
        }
        Ok(())
    }
}
