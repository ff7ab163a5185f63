//! What a sandbox directory records about its server (`sandbox.json`), and how to reach it.

use super::access;
use super::binaries::Binaries;
use super::options::ServerOption;
use super::process::ProcessId;
use crate::connection::{self, Endpoint, PgEndpoint};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a sandbox directory records about its server (`sandbox.json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SandboxState {
    pub name: String,
    pub dir: PathBuf,
    pub datadir: PathBuf,
    /// MySQL family: the socket file; PostgreSQL: the directory holding `.s.PGSQL.<port>`.
    pub socket: PathBuf,
    pub port: u16,
    pub error_log: PathBuf,
    pub process: Option<ProcessId>,
    pub binaries: Binaries,
    /// Every option passed to the server, defaults included, in order.
    pub options: Vec<ServerOption>,
    pub started_unix: u64,
    /// The account clients administer the server as, its protocol and how it stops, as its
    /// engine decided at start. States written before psbench recorded them lack them: the
    /// engine fills them in when it loads one (engines::sandboxes).
    #[serde(default)]
    pub superuser: String,
    #[serde(default)]
    pub protocol: connection::Engine,
    #[serde(default)]
    pub stop_signal: Option<i32>,
}

impl SandboxState {
    pub fn is_running(&self) -> bool {
        self.process.is_some_and(|p| p.is_running())
    }

    /// The root account over the sandbox's socket, whose directory only the owner can reach
    /// (root@localhost needs no password: it is reachable over the socket only).
    /// (PostgreSQL: the superuser `postgres` over the socket in that directory.)
    pub fn admin_endpoint(&self) -> Endpoint {
        let e = Endpoint::tcp("127.0.0.1", self.port, self.superuser())
            .with_socket(Some(self.socket.clone()));
        self.in_protocol(e)
    }

    /// root (PostgreSQL: postgres) over TCP on 127.0.0.1, with this sandbox's password.
    pub fn tcp_endpoint(&self) -> Endpoint {
        self.tcp_endpoint_with(access::password(&self.dir))
    }

    pub(super) fn tcp_endpoint_with(&self, password: Option<String>) -> Endpoint {
        let mut e = Endpoint::tcp("127.0.0.1", self.port, self.superuser());
        e.password = password;
        self.in_protocol(e)
    }

    fn superuser(&self) -> &str {
        &self.superuser
    }

    fn in_protocol(&self, mut e: Endpoint) -> Endpoint {
        e.engine = self.protocol;
        e
    }

    /// PostgreSQL's protocol: the superuser over the socket in the sandbox's private directory.
    pub fn pg_admin_endpoint(&self) -> PgEndpoint {
        PgEndpoint::tcp("127.0.0.1", self.port, self.superuser())
            .with_socket_dir(Some(self.socket.clone()))
    }

    /// PostgreSQL's protocol: the superuser over TCP on 127.0.0.1, with this sandbox's password.
    pub fn pg_tcp_endpoint(&self) -> PgEndpoint {
        let mut e = PgEndpoint::tcp("127.0.0.1", self.port, self.superuser());
        e.password = access::password(&self.dir);
        e
    }

    /// How the server is asked to stop (SIGTERM when the state does not say).
    pub fn stop_signal(&self) -> nix::sys::signal::Signal {
        self.stop_signal
            .and_then(|s| nix::sys::signal::Signal::try_from(s).ok())
            .unwrap_or(nix::sys::signal::Signal::SIGTERM)
    }

    /// The client defaults file (0600) holding the TCP connection and its password.
    pub fn client_defaults(&self) -> PathBuf {
        access::defaults_file(&self.dir)
    }

    fn file(dir: &Path) -> PathBuf {
        dir.join("sandbox.json")
    }

    pub fn load(dir: &Path) -> Result<Self> {
        let f = Self::file(dir);
        let text =
            std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", f.display()))
    }

    pub fn save(&self) -> Result<()> {
        let f = Self::file(&self.dir);
        let tmp = f.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(self)?)
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &f).with_context(|| format!("writing {}", f.display()))
    }
}
