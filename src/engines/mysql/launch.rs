//! How a sandbox runs a MariaDB or MySQL server: `--no-defaults` and an explicit option list,
//! the socket and logs in the sandbox, root's password set by an init file, readiness as a
//! connection over the socket, the variables and plugins read back to judge the options.

use super::{access, datadir, errorlog, options};
use crate::connection;
use crate::server::access::Access;
use crate::server::datadir::Initialiser;
use crate::server::errorlog::StartFailure;
use crate::server::{account::Account, Binaries, Launcher, ReadBack, SandboxState, ServerOption};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use nix::sys::signal::Signal;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The MySQL family's launcher (MariaDB and MySQL differ in defaults and initialisation,
/// which it reads from the binaries' flavour).
pub struct MySqlLauncher;

impl Initialiser for MySqlLauncher {
    fn is_initialised(&self, data: &Path) -> bool {
        datadir::is_initialised(data)
    }

    fn initialise(
        &self,
        bin: &Binaries,
        init_opts: &[ServerOption],
        data: &Path,
        server: Option<&Account>,
    ) -> Result<()> {
        datadir::initialise(bin, init_opts, data, server)
    }
}

impl Launcher for MySqlLauncher {
    fn label(&self, bin: &Binaries) -> String {
        crate::engines::label(bin)
    }

    fn superuser(&self) -> &'static str {
        "root"
    }

    fn protocol(&self) -> connection::Engine {
        connection::Engine::MySql
    }

    fn stop_signal(&self) -> Signal {
        Signal::SIGTERM
    }

    fn socket(&self, run: &Path) -> (PathBuf, PathBuf) {
        (run.join("mysqld.sock"), run.join("mysqld.sock"))
    }

    fn error_log(&self, run: &Path) -> PathBuf {
        run.join("error.log")
    }

    fn reserved(&self) -> &'static [&'static str] {
        // ServerOption::parse refuses the MySQL family's own (datadir, port, socket, …).
        &[]
    }

    fn defaults(&self, bin: &Binaries) -> Vec<ServerOption> {
        options::defaults(bin.flavour)
    }

    fn initialiser(&self) -> &dyn Initialiser {
        self
    }

    fn init_options(&self, opts: &[ServerOption]) -> Vec<ServerOption> {
        opts.iter()
            .filter(|o| options::INIT_KEYS.contains(&o.base_key()))
            .cloned()
            .collect()
    }

    fn prepare(&self, _state: &SandboxState) -> Result<()> {
        Ok(())
    }

    fn write_access(&self, a: &Access, state: &SandboxState) -> Result<()> {
        // A socket file left by a server that died would make readiness look immediate.
        let _ = std::fs::remove_file(&state.socket);
        access::write(a, state.port)
    }

    fn args(&self, s: &SandboxState, _access: &Access) -> Vec<String> {
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
        args.extend(access::server_args(&s.dir));
        args.extend(s.options.iter().map(ServerOption::to_arg));
        args
    }

    fn is_ready(&self, st: &SandboxState) -> bool {
        st.socket.exists() && st.admin_endpoint().connect().is_ok()
    }

    fn diagnose(&self, log: &str) -> StartFailure {
        errorlog::diagnose(log)
    }

    fn secure_and_read_back(&self, state: &SandboxState, a: &Access) -> Result<ReadBack> {
        // One admin connection secures the accounts and reads back what the server applied.
        let mut admin = state.admin_endpoint().connect()?;
        access::lock_down(a, &mut admin)
            .with_context(|| format!("securing the accounts of sandbox '{}'", state.name))?;
        let variables = read_pairs(&mut admin, state, "SHOW GLOBAL VARIABLES", "variables")?;
        // Plugin name (lower case) → status, to judge options that name a plugin.
        let plugins = read_pairs(
            &mut admin,
            state,
            "SELECT LOWER(PLUGIN_NAME), PLUGIN_STATUS FROM information_schema.PLUGINS",
            "plugins",
        )?;
        let not_applied = options::not_applied(&state.options, &variables, &plugins);
        Ok(ReadBack {
            variables,
            not_applied,
        })
    }
}

/// A two-column query's rows as name → value.
fn read_pairs(
    admin: &mut mysql::Conn,
    state: &SandboxState,
    query: &str,
    what: &str,
) -> Result<BTreeMap<String, String>> {
    let rows: Vec<(String, String)> = admin
        .query(query)
        .with_context(|| format!("reading {what} of sandbox '{}'", state.name))?;
    Ok(rows.into_iter().collect())
}
