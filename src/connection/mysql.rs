//! The MySQL protocol's side of a connection: where a MySQL-family server (a sandbox or any
//! external one) is reached, and connecting to it with the user's mistakes explained.

use super::dialect::Dialect;
use super::postgres::PgEndpoint;
use super::session::Session;
use super::wire::{Login, WireError};
use crate::error::usage;
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// How long connecting (and each step of the handshake) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Which protocol the server speaks.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// MySQL and MariaDB.
    #[default]
    MySql,
    Postgres,
}

/// Connection parameters. The password is never serialised, so it cannot reach a results
/// file, a report or a log through this type.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Endpoint {
    #[serde(default)]
    pub engine: Engine,
    pub host: String,
    pub port: u16,
    /// When set, the client connects over this unix socket and ignores host and port
    /// (PostgreSQL: the directory holding `.s.PGSQL.<port>`).
    pub socket: Option<PathBuf>,
    pub user: String,
    #[serde(skip)]
    pub password: Option<String>,
    pub database: Option<String>,
}

impl Endpoint {
    pub fn tcp(host: &str, port: u16, user: &str) -> Self {
        Endpoint {
            engine: Engine::MySql,
            host: host.to_string(),
            port,
            socket: None,
            user: user.to_string(),
            password: None,
            database: None,
        }
    }

    pub fn with_database(mut self, db: Option<&str>) -> Self {
        self.database = db.map(str::to_string);
        self
    }

    pub fn with_socket(mut self, socket: Option<PathBuf>) -> Self {
        self.socket = socket;
        self
    }

    /// The same server over PostgreSQL's protocol.
    pub fn postgres(mut self) -> Self {
        self.engine = Engine::Postgres;
        self
    }

    /// The SQL the server at this endpoint takes.
    pub fn dialect(&self) -> Dialect {
        Dialect::of(self.engine)
    }

    /// This endpoint in the PostgreSQL client's terms (database `postgres` when none is set).
    pub fn pg(&self) -> PgEndpoint {
        let mut e = PgEndpoint::tcp(&self.host, self.port, &self.user)
            .with_socket_dir(self.socket.clone())
            .with_database(self.database.as_deref().unwrap_or("postgres"));
        e.password = self.password.clone();
        e
    }

    /// `socket /path/mysqld.sock` or `127.0.0.1:3306`, for messages.
    pub fn describe(&self) -> String {
        if self.engine == Engine::Postgres {
            return self.pg().describe();
        }
        match &self.socket {
            Some(s) => format!("socket {}", s.display()),
            None => format!("{}:{}", self.host, self.port),
        }
    }

    pub fn opts(&self) -> mysql::Opts {
        let mut b = mysql::OptsBuilder::new()
            .user(Some(self.user.clone()))
            .pass(self.password.clone())
            .db_name(self.database.clone())
            // Keep the transport the user chose: the crate would otherwise switch TCP to the socket.
            .prefer_socket(false)
            // Without a client-side limit the crate asks `SELECT @@max_allowed_packet` on every
            // connect, one Com_select per connection that sysbench does not issue. The
            // server enforces its own limit; 1 GiB is the protocol's maximum.
            .max_allowed_packet(Some(1 << 30))
            .tcp_connect_timeout(Some(CONNECT_TIMEOUT));
        b = match &self.socket {
            Some(s) => b.socket(Some(s.display().to_string())),
            None => b
                .ip_or_hostname(Some(self.host.clone()))
                .tcp_port(self.port),
        };
        mysql::Opts::from(b)
    }

    /// Connect, classifying the usual user mistakes (wrong password, missing database,
    /// unreachable server) as usage errors with a hint. MySQL protocol only.
    pub fn connect(&self) -> Result<mysql::Conn> {
        if self.engine == Engine::Postgres {
            return Err(usage(format!(
                "{} speaks PostgreSQL: this step needs a MySQL-family server",
                self.describe()
            )));
        }
        mysql::Conn::new(self.opts()).map_err(|e| self.explain(e))
    }

    /// A connection of psbench's own client (connection::wire, connection::postgres), for the
    /// measured statements; the mistakes are explained as for `connect`.
    pub fn session(&self) -> Result<Session> {
        self.session_within(CONNECT_TIMEOUT)
    }

    /// Like `session`, connecting and each step of the handshake bounded by `timeout`: many
    /// clients connecting at once to a server on a small host may need longer than one.
    pub fn session_within(&self, timeout: Duration) -> Result<Session> {
        if self.engine == Engine::Postgres {
            return Ok(Session::Pg(self.pg().connect_within(timeout)?));
        }
        let login = Login {
            socket: self.socket.as_deref(),
            host: &self.host,
            port: self.port,
            user: &self.user,
            password: self.password.as_deref(),
            database: self.database.as_deref(),
        };
        super::wire::Session::connect(&login, timeout)
            .map(Session::MySql)
            .map_err(|e| {
                let explained = match &e {
                    WireError::Server { code, .. } => self.refusal(Some(*code), None),
                    WireError::Io(io) => self.refusal(None, Some(io)),
                    WireError::Protocol(_) => None,
                };
                explained.unwrap_or_else(|| {
                    anyhow::Error::new(e).context(format!(
                        "connecting to {} as '{}'",
                        self.describe(),
                        self.user
                    ))
                })
            })
    }

    /// Like `connect`, without the database (to create it).
    pub fn connect_without_db(&self) -> Result<mysql::Conn> {
        self.clone().with_database(None).connect()
    }

    /// The server's version string; this also checks that the server can be reached. A SHOW,
    /// not `SELECT VERSION()`, so that Com_select counts only the workload.
    pub fn server_version(&self) -> Result<String> {
        if self.engine == Engine::Postgres {
            return self.pg().server_version();
        }
        let mut conn = self.connect()?;
        let v: Option<(String, String)> = conn
            .query_first("SHOW GLOBAL VARIABLES LIKE 'version'")
            .with_context(|| format!("asking {} for its version", self.describe()))?;
        Ok(v.map(|(_, version)| version).unwrap_or_default())
    }

    fn explain(&self, e: mysql::Error) -> anyhow::Error {
        let explained = match &e {
            mysql::Error::MySqlError(me) => self.refusal(Some(me.code), None),
            mysql::Error::IoError(io) => self.refusal(None, Some(io)),
            mysql::Error::DriverError(mysql::DriverError::CouldNotConnect(why)) => Some(
                self.unreachable(
                    why.as_ref()
                        .map(|w| w.1.as_str())
                        .unwrap_or("could not connect"),
                ),
            ),
            _ => None,
        };
        explained.unwrap_or_else(|| {
            anyhow::Error::new(e).context(format!(
                "connecting to {} as '{}'",
                self.describe(),
                self.user
            ))
        })
    }

    /// The user's mistakes behind a refused connection (a server error code or a socket
    /// error), as usage errors with a hint; `None` for anything else.
    fn refusal(&self, code: Option<u16>, io: Option<&std::io::Error>) -> Option<anyhow::Error> {
        let at = self.describe();
        Some(match (code, io) {
            (Some(1045), _) => usage(format!(
                "access denied for user '{}' at {at}: wrong user or password \
                 (--mysql-user, --mysql-password or PSBENCH_MYSQL_PASSWORD)",
                self.user
            )),
            (Some(1049), _) => usage(format!(
                "database '{}' does not exist at {at}: create it, or let `prepare` create it",
                self.database.as_deref().unwrap_or("")
            )),
            // ER_CON_COUNT_ERROR: more clients than the server accepts.
            (Some(1040), _) => usage(format!(
                "the server at {at} refused a connection: too many connections \
                 (its max_connections is the limit; raise it, e.g. --option max_connections=N)"
            )),
            // EMFILE: this process may not open another socket.
            (_, Some(io)) if io.raw_os_error() == Some(libc::EMFILE) => usage(format!(
                "cannot open another connection to {at}: this process reached its open-files \
                 limit (ulimit -n)"
            )),
            (_, Some(io)) if super::timed_out(io) => super::no_answer(&at, io),
            (_, Some(io)) => self.unreachable(&io.to_string()),
            _ => return None,
        })
    }

    fn unreachable(&self, why: &str) -> anyhow::Error {
        usage(format!(
            "cannot reach a server at {}: {why} (is it running? check --mysql-host/--mysql-port/--mysql-socket)",
            self.describe()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_is_not_serialised() {
        let mut e = Endpoint::tcp("127.0.0.1", 3306, "u");
        e.password = Some("secret-pw".into());
        let json = serde_json::to_string(&e).unwrap();
        assert!(!json.contains("secret-pw"));
    }

    #[test]
    fn unreachable_server_is_a_usage_error_for_both_clients() {
        // A port nothing listens on: bound, read and released.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let endpoint = Endpoint::tcp("127.0.0.1", port, "root");
        for e in [
            endpoint.connect().unwrap_err(),
            endpoint.session().err().unwrap(),
        ] {
            assert!(crate::error::is_usage(&e), "{e:#}");
            assert!(e.to_string().contains("cannot reach"), "{e:#}");
        }
    }

    #[test]
    fn a_server_that_accepts_but_never_answers_is_a_timeout_not_a_mistake() {
        // The kernel completes the connection; nothing ever sends the handshake.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = silent.local_addr().unwrap().port();
        let e = Endpoint::tcp("127.0.0.1", port, "root")
            .session_within(Duration::from_millis(200))
            .err()
            .unwrap();
        assert!(!crate::error::is_usage(&e), "{e:#}");
        assert!(e.to_string().contains("did not answer within"), "{e:#}");
    }
}
