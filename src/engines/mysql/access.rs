//! Who can reach a MariaDB or MySQL sandbox: root's password for this start is set by an init
//! file before the server accepts its first connection, and stored 0600 in a client defaults
//! file; over the socket root@localhost needs none. `INTO OUTFILE` and `LOAD_FILE` are
//! confined to the sandbox's `files/` directory.

use crate::server::access::{defaults_file, files_dir, Access};
use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use std::path::{Path, PathBuf};

fn init_file(dir: &Path) -> PathBuf {
    dir.join("run").join("init.sql")
}

/// Write the init file and the client defaults file (0600, the server account's).
pub fn write(access: &Access, port: u16) -> Result<()> {
    let pw = access.password();
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
    access.write_private(&init_file(access.dir()), &init)?;
    let defaults = format!(
        "# psbench sandbox: root over TCP with this sandbox's own password (new at every start)\n\
             [client]\nuser=root\npassword={pw}\nhost=127.0.0.1\nport={port}\nprotocol=tcp\n"
    );
    access.write_private(&defaults_file(access.dir()), &defaults)
}

/// Options that confine the server: its init file, its files directory.
pub fn server_args(dir: &Path) -> Vec<String> {
    vec![
        format!("--init-file={}", init_file(dir).display()),
        format!("--secure-file-priv={}", files_dir(dir).display()),
    ]
}

/// Any other account a client could reach over TCP without a password gets this
/// sandbox's password (anonymous ones are dropped); then none may remain.
pub fn lock_down(access: &Access, admin: &mut mysql::Conn) -> Result<()> {
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
                access.password()
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
