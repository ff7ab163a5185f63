//! The OS account a sandbox's server runs as. Run by an ordinary user, the server runs as that
//! user. Run as root, psbench never gives the server root's file access: every engine's server
//! runs as psbench's own unprivileged account, `psbench` (created by bash scripts/setup.sh),
//! which must own what the server writes and be able to reach what it reads.

use crate::error::usage;
use anyhow::{Context, Result};
use nix::unistd::{Gid, Uid, User};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// The account every server runs as when psbench runs as root.
pub const SERVER_USER: &str = "psbench";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

/// True when running as root.
pub fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The account the server must run as: `None` when psbench is not root (the server runs as
/// psbench's own user), else [`SERVER_USER`].
pub fn server_account() -> Result<Option<Account>> {
    if !running_as_root() {
        return Ok(None);
    }
    let user = User::from_name(SERVER_USER)
        .context("looking up the server account")?
        .ok_or_else(|| {
            usage(format!(
                "psbench runs as root, so its servers run as the unprivileged account '{SERVER_USER}', which does not exist (bash scripts/setup.sh creates it: useradd --system --user-group --no-create-home --shell /usr/sbin/nologin {SERVER_USER})"
            ))
        })?;
    Ok(Some(Account {
        name: user.name,
        uid: user.uid.as_raw(),
        gid: user.gid.as_raw(),
    }))
}

/// In a child between fork and exec: become `uid`/`gid` with no other groups. Only
/// async-signal-safe calls.
pub fn become_ids(uid: u32, gid: u32) -> std::io::Result<()> {
    let groups = [gid];
    // SAFETY: plain syscalls on values owned by this frame.
    let failed = unsafe {
        libc::setgroups(1, groups.as_ptr()) != 0 || libc::setgid(gid) != 0 || libc::setuid(uid) != 0
    };
    if failed {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Run `cmd` as `account`: a tool that must talk to a server as its own user (valgrind's
/// control pipes answer their owner only).
pub fn run_as(cmd: &mut std::process::Command, account: &Account) {
    use std::os::unix::process::CommandExt;
    let (uid, gid) = (account.uid, account.gid);
    cmd.current_dir("/");
    // SAFETY: become_ids makes only async-signal-safe calls.
    unsafe {
        cmd.pre_exec(move || become_ids(uid, gid));
    }
}

/// Give `path` and everything under it to `account` (symlinks themselves, not their targets).
pub fn give(path: &Path, account: &Account) -> Result<()> {
    let mut stack = vec![path.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta =
            std::fs::symlink_metadata(&p).with_context(|| format!("reading {}", p.display()))?;
        if meta.uid() != account.uid || meta.gid() != account.gid {
            nix::unistd::fchownat(
                nix::fcntl::AT_FDCWD,
                &p,
                Some(Uid::from_raw(account.uid)),
                Some(Gid::from_raw(account.gid)),
                nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
            )
            .with_context(|| format!("giving {} to {}", p.display(), account.name))?;
        }
        if meta.is_dir() {
            for e in std::fs::read_dir(&p).with_context(|| format!("reading {}", p.display()))? {
                stack.push(e?.path());
            }
        }
    }
    Ok(())
}

/// Create `dir` (and its parents) private to its owner: mode 0700.
pub fn private_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .with_context(|| format!("making {} private", dir.display()))
}

/// Fails, naming the first directory in the way, when `account` cannot reach `path` (search
/// permission on every directory above it).
pub fn check_reachable(path: &Path, account: &Account) -> Result<()> {
    let mut blocked = None;
    for dir in path.ancestors().skip(1) {
        let Ok(meta) = std::fs::metadata(dir) else {
            continue;
        };
        let mode = meta.mode();
        let ok = if meta.uid() == account.uid {
            mode & 0o100 != 0
        } else if meta.gid() == account.gid {
            mode & 0o010 != 0
        } else {
            mode & 0o001 != 0
        };
        if !ok {
            blocked = Some(dir.to_path_buf());
        }
    }
    match blocked {
        None => Ok(()),
        Some(d) => Err(usage(format!(
            "the server runs as '{}', which cannot reach {} ({} is closed to it): put PSBENCH_HOME and PSBENCH_CACHE where it can, e.g. under /var/lib",
            account.name,
            path.display(),
            d.display()
        ))),
    }
}
