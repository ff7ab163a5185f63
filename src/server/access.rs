//! Who can reach a sandbox's server. Over TCP (127.0.0.1, reachable by every local user) no
//! account gets in without this sandbox's own random password, set by an init file before the
//! server accepts its first connection, so a copied datadir gets a new one too. Over the unix
//! socket, root@localhost needs none: the socket lives in the sandbox's 0700 directory, which
//! only its owner reaches. `INTO OUTFILE` and `LOAD_FILE` are confined to the sandbox's
//! `files/` directory. The password is stored 0600 in a client defaults file, never passed on
//! a command line.

use super::account::{self, Account};
use super::home::Home;
use crate::connection::password_from_file;
use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use rand::distr::{Alphanumeric, SampleString};
use std::os::unix::fs::OpenOptionsExt;
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
/// account's (so it can reach the sandboxes inside).
pub fn prepare_home(home: &Home, server: Option<&Account>) -> Result<()> {
    let root = home.root();
    if root.exists() {
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

    fn init_file(&self) -> PathBuf {
        self.dir.join("run").join("init.sql")
    }

    /// A PostgreSQL sandbox's client file: libpq's password file (0600), for
    /// `PGPASSFILE=… psql -h 127.0.0.1 -p PORT -U postgres`. The server gets the password from
    /// the superuser's connection over the socket once it runs (postgres::secure).
    pub fn write_pgpass(&self, port: u16, user: &str) -> Result<()> {
        let text = format!(
            "# psbench sandbox: {user} over TCP with this sandbox's own password (new at every start)\n\
             127.0.0.1:{port}:*:{user}:{}\n",
            self.password
        );
        self.write_private(&pgpass_file(&self.dir), &text)
    }

    /// Write the init file and the client defaults file (0600, the server account's).
    pub fn write(&self, port: u16) -> Result<()> {
        let pw = &self.password;
        let mut init = String::new();
        for host in ["127.0.0.1", "::1", "%"] {
            init.push_str(&format!(
                "ALTER USER IF EXISTS 'root'@'{host}' IDENTIFIED BY '{pw}';\n"
            ));
        }
        // MySQL's --initialize-insecure creates root@localhost only.
        init.push_str(&format!(
            "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '{pw}';\n\
             GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n\
             DROP USER IF EXISTS ''@'localhost', ''@'127.0.0.1', ''@'%';\n"
        ));
        self.write_private(&self.init_file(), &init)?;
        let defaults = format!(
            "# psbench sandbox: root over TCP with this sandbox's own password (new at every start)\n\
             [client]\nuser=root\npassword={pw}\nhost=127.0.0.1\nport={port}\nprotocol=tcp\n"
        );
        self.write_private(&defaults_file(&self.dir), &defaults)
    }

    fn write_private(&self, path: &Path, text: &str) -> Result<()> {
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

    /// Options that confine the server: its init file, its files directory.
    pub fn server_args(&self) -> Vec<String> {
        vec![
            format!("--init-file={}", self.init_file().display()),
            format!("--secure-file-priv={}", files_dir(&self.dir).display()),
        ]
    }

    /// The account the server process is started as (psbench's own user when `None`).
    pub fn server_account(&self) -> Option<&Account> {
        self.server.as_ref()
    }

    /// Any other account a client could reach over TCP without a password gets this
    /// sandbox's password (anonymous ones are dropped); then none may remain.
    pub fn lock_down(&self, admin: &mut mysql::Conn) -> Result<()> {
        let open = |admin: &mut mysql::Conn| -> Result<Vec<(String, String)>> {
            let rows: Vec<(String, String)> = admin.query(
                "SELECT User, Host FROM mysql.user WHERE User = '' OR authentication_string = ''",
            )?;
            Ok(rows.into_iter().filter(|(_, h)| tcp_reachable(h)).collect())
        };
        for (user, host) in open(admin)? {
            let stmt = if user.is_empty() {
                format!("DROP USER ''@'{host}'")
            } else {
                format!(
                    "ALTER USER '{user}'@'{host}' IDENTIFIED BY '{}'",
                    self.password
                )
            };
            admin
                .query_drop(&stmt)
                .with_context(|| format!("securing '{user}'@'{host}'"))?;
        }
        let left = open(admin)?;
        if !left.is_empty() {
            bail!("accounts reachable without a password remain: {left:?}");
        }
        Ok(())
    }
}

/// Whether a TCP client could match an account's host. The server skips name resolution, so
/// a TCP client is its address (127.0.0.1 or ::1): only address literals and patterns match;
/// 'localhost' is the socket, a host name nothing, and roles have an empty host.
fn tcp_reachable(host: &str) -> bool {
    let addr = host.split('/').next().unwrap_or(host);
    host.contains(['%', '_']) || addr.parse::<std::net::IpAddr>().is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn hosts_a_tcp_client_can_match() {
        for h in ["127.0.0.1", "::1", "%", "127.%", "10.0.0.0/255.0.0.0"] {
            assert!(super::tcp_reachable(h), "{h}");
        }
        for h in ["localhost", "", "vm", "db.example.com"] {
            assert!(!super::tcp_reachable(h), "{h}");
        }
    }
}
