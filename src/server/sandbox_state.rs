//! What a sandbox directory records about its server (`sandbox.json`), and how to reach it.

use super::access;
use super::basedir::{Binaries, Flavour};
use super::options::ServerOption;
use super::postgres as pg;
use super::process::ProcessId;
use crate::connection::{Endpoint, PgEndpoint};
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

    fn superuser(&self) -> &'static str {
        match self.binaries.flavour {
            Flavour::Postgres => pg::SUPERUSER,
            _ => "root",
        }
    }

    fn in_protocol(&self, e: Endpoint) -> Endpoint {
        match self.binaries.flavour {
            Flavour::Postgres => e.postgres(),
            _ => e,
        }
    }

    /// PostgreSQL: the superuser over the socket in the sandbox's private directory.
    pub fn pg_admin_endpoint(&self) -> PgEndpoint {
        PgEndpoint::tcp("127.0.0.1", self.port, pg::SUPERUSER)
            .with_socket_dir(Some(self.socket.clone()))
    }

    /// PostgreSQL: the superuser over TCP on 127.0.0.1, with this sandbox's password.
    pub fn pg_tcp_endpoint(&self) -> PgEndpoint {
        let mut e = PgEndpoint::tcp("127.0.0.1", self.port, pg::SUPERUSER);
        e.password = access::password(&self.dir);
        e
    }

    /// How the server is asked to stop (PostgreSQL's fast shutdown is SIGINT).
    pub fn stop_signal(&self) -> nix::sys::signal::Signal {
        match self.binaries.flavour {
            Flavour::Postgres => nix::sys::signal::Signal::SIGINT,
            _ => nix::sys::signal::Signal::SIGTERM,
        }
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

    pub(super) fn save(&self) -> Result<()> {
        let f = Self::file(&self.dir);
        let tmp = f.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(self)?)
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &f).with_context(|| format!("writing {}", f.display()))
    }

    /// A MySQL-family server's arguments: the sandbox's own, then its options.
    pub(super) fn mysql_args(&self, access: &access::Access) -> Vec<String> {
        let s = self;
        let bin = &s.binaries;
        let mut args: Vec<String> = vec!["--no-defaults".into()];
        if let Some(b) = &bin.basedir {
            args.push(format!("--basedir={}", b.display()));
        }
        if let Some(p) = &bin.plugin_dir {
            args.push(format!("--plugin-dir={}", p.display()));
        }
        args.extend([
            format!("--datadir={}", s.datadir.display()),
            format!("--port={}", s.port),
            "--bind-address=127.0.0.1".into(),
            format!("--socket={}", s.socket.display()),
            format!("--pid-file={}", s.dir.join("run/mysqld.pid").display()),
            format!("--log-error={}", s.error_log.display()),
            format!("--tmpdir={}", s.dir.join("tmp").display()),
        ]);
        args.extend(access.server_args());
        args.extend(s.options.iter().map(ServerOption::to_arg));
        args
    }
}
