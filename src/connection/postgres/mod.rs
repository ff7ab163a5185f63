//! The PostgreSQL protocol's side of a connection: where a PostgreSQL server (a sandbox or
//! any external one) is reached, and connecting to it with the user's mistakes explained.

mod rows;
mod session;
mod statements;

pub use session::{PgError, PgLogin, PgSession, TextRows};
pub use statements::{PgOutcome, PgPrepared};

use crate::error::usage;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// How long connecting (and each read of the start-up) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Connection parameters. The password is never serialised, so it cannot reach a results
/// file, a report or a log through this type.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct PgEndpoint {
    pub host: String,
    pub port: u16,
    /// When set, the client connects over the socket in this directory (`.s.PGSQL.<port>`).
    pub socket_dir: Option<PathBuf>,
    pub user: String,
    #[serde(skip)]
    pub password: Option<String>,
    pub database: String,
}

impl PgEndpoint {
    pub fn tcp(host: &str, port: u16, user: &str) -> Self {
        PgEndpoint {
            host: host.to_string(),
            port,
            socket_dir: None,
            user: user.to_string(),
            password: None,
            database: "postgres".to_string(),
        }
    }

    pub fn with_socket_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.socket_dir = dir;
        self
    }

    pub fn with_database(mut self, db: &str) -> Self {
        self.database = db.to_string();
        self
    }

    /// `socket /dir/.s.PGSQL.5432` or `127.0.0.1:5432`, for messages.
    pub fn describe(&self) -> String {
        match &self.socket_dir {
            Some(d) => format!("socket {}/.s.PGSQL.{}", d.display(), self.port),
            None => format!("{}:{}", self.host, self.port),
        }
    }

    /// Connect, classifying the usual user mistakes (wrong password, missing database,
    /// unreachable server) as usage errors with a hint.
    pub fn connect(&self) -> Result<PgSession> {
        self.connect_within(CONNECT_TIMEOUT)
    }

    pub fn connect_within(&self, timeout: Duration) -> Result<PgSession> {
        let login = PgLogin {
            socket_dir: self.socket_dir.as_deref(),
            host: &self.host,
            port: self.port,
            user: &self.user,
            password: self.password.as_deref(),
            database: &self.database,
        };
        PgSession::connect(&login, timeout).map_err(|e| self.explain(e))
    }

    /// The server's version (`server_version` as reported at start-up, e.g. `17.2`).
    pub fn server_version(&self) -> Result<String> {
        let s = self.connect()?;
        Ok(s.parameter("server_version")
            .unwrap_or_default()
            .to_string())
    }

    fn explain(&self, e: PgError) -> anyhow::Error {
        let at = self.describe();
        match &e {
            // invalid_password, invalid_authorization_specification
            PgError::Server { code, .. } if code == "28P01" || code == "28000" => usage(format!(
                "access denied for user '{}' at {at}: wrong user or password ({e})",
                self.user
            )),
            // invalid_catalog_name
            PgError::Server { code, .. } if code == "3D000" => usage(format!(
                "database '{}' does not exist at {at}: create it, or let `prepare` create it",
                self.database
            )),
            // too_many_connections
            PgError::Server { code, .. } if code == "53300" => usage(format!(
                "the server at {at} refused a connection: too many connections \
                 (its max_connections is the limit; raise it, e.g. --option max_connections=N)"
            )),
            PgError::Io(io) if super::timed_out(io) => super::no_answer(&at, io),
            PgError::Io(io) => usage(format!(
                "cannot reach a server at {at}: {io} (is it running? check the host, port or socket)"
            )),
            _ => anyhow::Error::new(e)
                .context(format!("connecting to {at} as '{}'", self.user)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_is_not_serialised() {
        let mut e = PgEndpoint::tcp("127.0.0.1", 5432, "u");
        e.password = Some("secret-pw".into());
        assert!(!serde_json::to_string(&e).unwrap().contains("secret-pw"));
    }

    #[test]
    fn unreachable_server_is_a_usage_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let e = PgEndpoint::tcp("127.0.0.1", port, "postgres")
            .connect()
            .err()
            .unwrap();
        assert!(crate::error::is_usage(&e), "{e:#}");
        assert!(e.to_string().contains("cannot reach"), "{e:#}");
    }
}
