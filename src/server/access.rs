//! Who can reach a sandbox's server. Over TCP (127.0.0.1, reachable by every local user) no
//! account gets in without this sandbox's own random password, new at every start, so a
//! copied datadir gets a new one too; over the unix socket, whose 0700 directory only the
//! sandbox's owner reaches, the administrator needs none. The password is stored 0600 in a
//! client file, never passed on a command line. How each engine sets it is in engines/.

use super::account::{self, Account};
use super::home::Home;
use crate::connection::password_from_file;
use anyhow::{Context, Result};
use rand::distr::{Alphanumeric, SampleString};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The client defaults file of the sandbox in `dir`.
pub fn defaults_file(dir: &Path) -> PathBuf {
    dir.join("client.cnf")
}

/// The one directory the server may read and write files in (`secure_file_priv`).
pub fn files_dir(dir: &Path) -> PathBuf {
    dir.join("files")
}

/// The password file (0600) of a PostgreSQL sandbox in `dir`, in libpq's format (PGPASSFILE).
pub fn pgpass_file(dir: &Path) -> PathBuf {
    dir.join("pgpass")
}

/// The password of the sandbox in `dir`, when it has been started.
pub fn password(dir: &Path) -> Option<String> {
    password_from_file(&defaults_file(dir)).ok().or_else(|| {
        let text = std::fs::read_to_string(pgpass_file(dir)).ok()?;
        let line = text.lines().find(|l| !l.starts_with('#'))?;
        line.rsplit(':').next().map(str::to_string)
    })
}

/// Create the home when missing: private, and when the server runs as another account, that
/// account's (so it can reach the sandboxes inside). A home another account owns (one made
/// when servers ran as Debian's `mysql` account) is handed over whole.
pub fn prepare_home(home: &Home, server: Option<&Account>) -> Result<()> {
    let root = home.root();
    if root.exists() {
        let owner = std::fs::metadata(root)
            .with_context(|| format!("reading {}", root.display()))?
            .uid();
        if let Some(acc) = server.filter(|a| a.uid != owner) {
            account::give(root, acc)?;
        }
        return Ok(());
    }
    account::private_dir(root)?;
    if let Some(acc) = server {
        account::give(root, acc)?;
    }
    Ok(())
}

/// A sandbox's access settings for one start.
#[derive(Clone, Debug)]
pub struct Access {
    dir: PathBuf,
    server: Option<Account>,
    password: String,
}

impl Access {
    pub fn new(dir: &Path, server: Option<Account>) -> Access {
        Access {
            dir: dir.to_path_buf(),
            server,
            password: Alphanumeric.sample_string(&mut rand::rng(), 32),
        }
    }

    pub fn password(&self) -> &str {
        &self.password
    }

    /// The sandbox's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Write `text` to `path`, 0600 and the server account's.
    pub fn write_private(&self, path: &Path, text: &str) -> Result<()> {
        let _ = std::fs::remove_file(path);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
            .with_context(|| format!("writing {}", path.display()))?;
        if let Some(acc) = &self.server {
            account::give(path, acc)?;
        }
        Ok(())
    }

    /// The account the server process is started as (psbench's own user when `None`).
    pub fn server_account(&self) -> Option<&Account> {
        self.server.as_ref()
    }
}
