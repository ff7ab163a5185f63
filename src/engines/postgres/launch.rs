//! How a PostgreSQL sandbox's server is started: its arguments (no configuration file is
//! read: every setting is on the command line), its own hba file, and what its log says when
//! start-up fails.

use super::{cluster, secure, settings, SUPERUSER};
use crate::connection;
use crate::server::access::{pgpass_file, Access};
use crate::server::account::Account;
use crate::server::datadir::Initialiser;
use crate::server::errorlog::StartFailure;
use crate::server::options::ServerOption;
use crate::server::{Binaries, Launcher, ReadBack, SandboxState};
use anyhow::{Context, Result};
use nix::sys::signal::Signal;
use std::path::{Path, PathBuf};

/// The sandbox's buffer pool unless a variant sets its own (as the MySQL family's).
pub const DEFAULT_SHARED_BUFFERS: &str = "256MB";

/// PostgreSQL's launcher.
pub struct PgLauncher;

impl Initialiser for PgLauncher {
    fn is_initialised(&self, data: &Path) -> bool {
        cluster::is_cluster(data)
    }

    fn initialise(
        &self,
        bin: &Binaries,
        _init_opts: &[ServerOption],
        data: &Path,
        server: Option<&Account>,
    ) -> Result<()> {
        cluster::initdb(bin, data, server)
    }
}

impl Launcher for PgLauncher {
    fn label(&self, bin: &Binaries) -> String {
        crate::engines::label(bin)
    }

    fn superuser(&self) -> &'static str {
        SUPERUSER
    }

    fn protocol(&self) -> connection::Engine {
        connection::Engine::Postgres
    }

    /// Fast shutdown (SIGTERM would wait for every client to leave).
    fn stop_signal(&self) -> Signal {
        Signal::SIGINT
    }

    fn socket(&self, run: &Path) -> (PathBuf, PathBuf) {
        (run.to_path_buf(), socket_file(run, u16::MAX))
    }

    /// PostgreSQL writes its log to stderr, which the sandbox keeps in run/server.out.
    fn error_log(&self, run: &Path) -> PathBuf {
        run.join("server.out")
    }

    fn reserved(&self) -> &'static [&'static str] {
        super::RESERVED
    }

    /// Data in memory and commits that do not wait for the WAL flush (as the MySQL family's
    /// innodb_flush_log_at_trx_commit=2).
    fn defaults(&self, _bin: &Binaries) -> Vec<ServerOption> {
        vec![
            ServerOption::new("shared_buffers", DEFAULT_SHARED_BUFFERS),
            ServerOption::new("synchronous_commit", "off"),
            ServerOption::new(
                "max_connections",
                &crate::engines::DEFAULT_MAX_CONNECTIONS.to_string(),
            ),
        ]
    }

    fn initialiser(&self) -> &dyn Initialiser {
        self
    }

    /// initdb takes none of the server's settings.
    fn init_options(&self, _options: &[ServerOption]) -> Vec<ServerOption> {
        Vec::new()
    }

    fn prepare(&self, state: &SandboxState) -> Result<()> {
        write_hba(&hba_file(state))
    }

    /// libpq's password file (0600), for `PGPASSFILE=… psql -h 127.0.0.1 -p PORT -U postgres`.
    /// The server gets the password from the superuser's connection over the socket once it
    /// runs (secure.rs).
    fn write_access(&self, access: &Access, state: &SandboxState) -> Result<()> {
        let text = format!(
            "# psbench sandbox: {SUPERUSER} over TCP with this sandbox's own password (new at every start)\n\
             127.0.0.1:{}:*:{SUPERUSER}:{}\n",
            state.port,
            access.password()
        );
        access.write_private(&pgpass_file(&state.dir), &text)
    }

    fn args(&self, s: &SandboxState, _access: &Access) -> Vec<String> {
        args(&s.datadir, s.port, &s.socket, &hba_file(s), &s.options)
    }

    fn is_ready(&self, st: &SandboxState) -> bool {
        socket_file(&st.socket, st.port).exists() && st.pg_admin_endpoint().connect().is_ok()
    }

    fn diagnose(&self, log: &str) -> StartFailure {
        diagnose(log)
    }

    /// The superuser's password for this start, then pg_settings, over the socket.
    fn secure_and_read_back(&self, state: &SandboxState, access: &Access) -> Result<ReadBack> {
        let mut admin = state.pg_admin_endpoint().connect()?;
        let read = secure::read_settings(&mut admin)
            .with_context(|| format!("reading the settings of sandbox '{}'", state.name))?;
        secure::set_passwords(&mut admin, access.password())
            .with_context(|| format!("securing the roles of sandbox '{}'", state.name))?;
        Ok(ReadBack {
            not_applied: settings::not_applied(&state.options, &read),
            variables: read.into_iter().map(|(k, v)| (k, v.setting)).collect(),
        })
    }
}

fn hba_file(s: &SandboxState) -> PathBuf {
    s.dir.join("run/pg_hba.conf")
}

/// The sandbox's socket file in its socket directory.
pub fn socket_file(socket_dir: &Path, port: u16) -> PathBuf {
    socket_dir.join(format!(".s.PGSQL.{port}"))
}

/// Who may connect: over the socket (in the owner's private directory) anyone, over TCP from
/// 127.0.0.1 only with a SCRAM password — and no role has one until the sandbox sets it.
pub fn write_hba(path: &Path) -> Result<()> {
    let text = "# psbench sandbox: rewritten at every start\n\
                local all all trust\n\
                host all all 127.0.0.1/32 scram-sha-256\n";
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Arguments for `postgres`: the sandbox's own settings, then `options` (defaults merged
/// with the variant's) as `-c key=value`.
pub fn args(
    datadir: &Path,
    port: u16,
    run: &Path,
    hba: &Path,
    options: &[ServerOption],
) -> Vec<String> {
    let mut a = vec![
        "-D".to_string(),
        datadir.display().to_string(),
        "-p".to_string(),
        port.to_string(),
    ];
    let own = [
        ("listen_addresses", "127.0.0.1".to_string()),
        ("unix_socket_directories", run.display().to_string()),
        ("unix_socket_permissions", "0700".to_string()),
        ("hba_file", hba.display().to_string()),
        (
            "external_pid_file",
            run.join("postgres.pid").display().to_string(),
        ),
        ("logging_collector", "off".to_string()),
        ("ssl", "off".to_string()),
    ];
    for (k, v) in own {
        a.push("-c".into());
        a.push(format!("{k}={v}"));
    }
    for o in options {
        a.push("-c".into());
        a.push(format!("{}={}", o.key, o.value.as_deref().unwrap_or("on")));
    }
    a
}

/// Why start-up failed, from the server's log since the attempt began.
pub fn diagnose(log: &str) -> StartFailure {
    if log.contains("Address already in use") {
        return StartFailure::PortInUse;
    }
    let fatal: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("FATAL:") || l.contains("PANIC:"))
        .collect();
    for line in &fatal {
        // `unrecognized configuration parameter "x"`, `invalid value for parameter "x": …`,
        // `parameter "x" requires a Boolean value`, `… out of bounds for parameter "x" …`.
        if let Some(name) = line
            .split("parameter \"")
            .nth(1)
            .and_then(|r| r.split('"').next())
        {
            return StartFailure::RejectedOption {
                option: name.to_string(),
                line: line.trim().to_string(),
            };
        }
        // A library in shared_preload_libraries that is not there.
        if line.contains("could not access file") {
            return StartFailure::RejectedOption {
                option: "shared_preload_libraries".to_string(),
                line: line.trim().to_string(),
            };
        }
    }
    let lines = if fatal.is_empty() {
        crate::server::errorlog::tail(log, 10)
    } else {
        fatal.join("\n")
    };
    StartFailure::Other { lines }
}

#[cfg(test)]
// A test that fails on any other value needs no list of them.
#[allow(clippy::wildcard_enum_match_arm)]
mod tests {
    use super::*;

    #[test]
    fn options_follow_the_sandbox_settings() {
        let opts = vec![
            ServerOption::new("shared_buffers", "128MB"),
            ServerOption::parse("track_io_timing").unwrap(),
        ];
        let a = args(
            Path::new("/s/data"),
            5999,
            Path::new("/s/run"),
            Path::new("/s/run/pg_hba.conf"),
            &opts,
        );
        let s = a.join(" ");
        assert!(s.starts_with("-D /s/data -p 5999 -c listen_addresses=127.0.0.1"));
        assert!(
            s.ends_with("-c shared_buffers=128MB -c track_io_timing=on"),
            "{s}"
        );
    }

    #[test]
    fn reads_start_up_failures() {
        let taken = "LOG:  could not bind IPv4 address \"127.0.0.1\": Address already in use\n\
                     FATAL:  could not create any TCP/IP sockets";
        assert!(matches!(diagnose(taken), StartFailure::PortInUse));
        let bad = "2026-11-25 FATAL:  unrecognized configuration parameter \"shared_bufers\"";
        match diagnose(bad) {
            StartFailure::RejectedOption { option, .. } => assert_eq!(option, "shared_bufers"),
            _ => panic!("not a rejected option"),
        }
        let lib = "FATAL:  could not access file \"pg_nope\": No such file or directory";
        match diagnose(lib) {
            StartFailure::RejectedOption { option, .. } => {
                assert_eq!(option, "shared_preload_libraries")
            }
            _ => panic!("not a rejected option"),
        }
        assert!(matches!(
            diagnose("FATAL:  other"),
            StartFailure::Other { .. }
        ));
    }
}
