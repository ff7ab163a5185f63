//! A private server: its own directory, datadir copy, free port, socket, pid file and error
//! log, bound to 127.0.0.1, started with an explicit option list and nothing read from the
//! system's configuration, and stopped by its own pid. Dropping a [`Sandbox`] stops its
//! server. What to run and how to tell it is up comes from its engine ([`Launcher`], chosen
//! by engines/).

use super::access::{self, Access};
use super::account;
use super::binaries::Binaries;
use super::datadir;
use super::errorlog::{self, StartFailure};
use super::home::Home;
use super::launcher::Launcher;
use super::options::{self, ServerOption};
use super::port::free_port;
use super::process::ProcessId;
use super::registry;
pub use super::sandbox_state::SandboxState;
use crate::connection::Endpoint;
use crate::error::usage;
use crate::results::{CpuList, Family};
use anyhow::{anyhow, bail, Context, Result};
use nix::sched::sched_setaffinity;
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What to start.
#[derive(Clone, Debug)]
pub struct SandboxSpec {
    pub name: String,
    pub home: Home,
    /// `None`: the system's server of `family` (mariadbd when that is `None` too).
    pub basedir: Option<PathBuf>,
    /// The engine family asked for: a basedir of another is refused; `None` takes what
    /// basedir holds.
    pub family: Option<Family>,
    /// The variant's options; they override the small-machine defaults.
    pub options: Vec<ServerOption>,
    /// Start from a copy of this datadir (a snapshot) instead of a fresh one.
    pub datadir_from: Option<PathBuf>,
    /// Discard this sandbox's datadir from an earlier start.
    pub fresh: bool,
    pub ready_timeout: Duration,
    /// Program and arguments to run the server under (e.g. valgrind for cost mode).
    pub wrapper: Vec<String>,
    /// Leave the server running when this process exits (the `sandbox start` command).
    pub detached: bool,
    /// Try this port first; when it is taken, a free one is chosen instead.
    pub port_hint: Option<u16>,
    /// The CPUs the server (every process and thread it starts) runs on; `None`: psbench's.
    pub cpus: Option<CpuList>,
}

impl SandboxSpec {
    pub fn new(name: &str, home: Home) -> Self {
        SandboxSpec {
            name: name.to_string(),
            home,
            basedir: None,
            family: None,
            options: Vec::new(),
            datadir_from: None,
            fresh: false,
            ready_timeout: Duration::from_secs(60),
            wrapper: Vec::new(),
            detached: false,
            port_hint: None,
            cpus: None,
        }
    }

    pub fn option(mut self, kv: &str) -> Result<Self> {
        self.options.push(ServerOption::parse(kv)?);
        Ok(self)
    }
}

/// A running server owned by this process.
pub struct Sandbox {
    spec: SandboxSpec,
    launcher: &'static dyn Launcher,
    state: SandboxState,
    child: Option<Child>,
    registry_key: Option<u64>,
    variables: BTreeMap<String, String>,
    access: Access,
}

/// Unix socket paths are limited to 107 bytes.
const MAX_SOCKET_PATH: usize = 107;
pub const STOP_GRACE: Duration = Duration::from_secs(30);

impl Sandbox {
    /// Create (or reuse) the sandbox's datadir for `binaries`, start the server as its engine
    /// (`launcher`) says, wait until it accepts connections, read back its variables and check
    /// that the options took effect. engines::start locates the binaries and picks the launcher.
    pub fn start(
        spec: SandboxSpec,
        binaries: Binaries,
        launcher: &'static dyn Launcher,
    ) -> Result<Sandbox> {
        validate_name(&spec.name)?;
        let dir = spec.home.sandbox_dir(&spec.name);
        let run = dir.join("run");
        let (socket, longest) = launcher.socket(&run);
        if let Some(o) = spec
            .options
            .iter()
            .find(|o| launcher.reserved().contains(&o.key.as_str()))
        {
            return Err(usage(format!(
                "server option '{}' is set by the sandbox itself and cannot be overridden",
                o.key
            )));
        }
        if longest.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(usage(format!(
                "socket path {} is longer than {MAX_SOCKET_PATH} bytes: set PSBENCH_HOME to a shorter directory",
                longest.display()
            )));
        }
        if let Ok(old) = SandboxState::load(&dir) {
            if old.is_running() {
                return Err(usage(format!(
                    "sandbox '{}' is already running (pid {}): `psbench sandbox stop {}` first",
                    spec.name,
                    old.process.map(|p| p.pid).unwrap_or(0),
                    spec.name
                )));
            }
        }
        let server_account = account::server_account()?;
        access::prepare_home(&spec.home, server_account.as_ref())?;
        account::private_dir(&dir)?;
        if let (Some(acc), Some(base)) = (&server_account, &binaries.basedir) {
            account::check_reachable(&base.join("share"), acc)?;
        }
        let datadir = dir.join("data");
        if (spec.fresh || spec.datadir_from.is_some()) && datadir.exists() {
            std::fs::remove_dir_all(&datadir)
                .with_context(|| format!("removing old datadir {}", datadir.display()))?;
        }
        let init = launcher.initialiser();
        if !init.is_initialised(&datadir) {
            let _ = std::fs::remove_dir_all(&datadir);
            let src = match &spec.datadir_from {
                Some(s) => {
                    if !init.is_initialised(s) {
                        return Err(usage(format!(
                            "{} is not a {} datadir",
                            s.display(),
                            launcher.label(&binaries)
                        )));
                    }
                    s.clone()
                }
                None => datadir::pristine(
                    init,
                    &binaries,
                    &launcher.label(&binaries),
                    &launcher.init_options(&spec.options),
                    &spec.home.initdb_cache(),
                    server_account.as_ref(),
                )
                .with_context(|| format!("creating a datadir for sandbox '{}'", spec.name))?,
            };
            datadir::copy(&src, &datadir)?;
        }
        for d in [&run, &dir.join("tmp"), &access::files_dir(&dir)] {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        }
        let access = Access::new(&dir, server_account);
        let options = options::merge(launcher.defaults(&binaries), &spec.options);
        let state = SandboxState {
            name: spec.name.clone(),
            dir: dir.clone(),
            datadir,
            socket,
            port: 0,
            error_log: launcher.error_log(&run),
            process: None,
            binaries,
            options,
            started_unix: 0,
            superuser: launcher.superuser().to_string(),
            protocol: launcher.protocol(),
            stop_signal: Some(launcher.stop_signal() as i32),
        };
        launcher.prepare(&state)?;
        if let Some(acc) = access.server_account() {
            account::give(&dir, acc)?;
            account::check_reachable(&dir, acc)?;
        }
        let mut sb = Sandbox {
            spec,
            launcher,
            state,
            child: None,
            registry_key: None,
            variables: BTreeMap::new(),
            access,
        };
        sb.boot()?;
        Ok(sb)
    }

    /// Start the server process on a free port and wait for it; a port taken in the
    /// meantime is not an error, another one is chosen.
    fn boot(&mut self) -> Result<()> {
        let mut attempts = 0;
        loop {
            attempts += 1;
            self.state.port = match self.spec.port_hint.take() {
                Some(p) => p,
                None => free_port()?,
            };
            let log_from = errorlog::offset(&self.state.error_log);
            self.launcher.write_access(&self.access, &self.state)?;
            self.launch()?;
            match self.wait_ready(log_from) {
                Ok(()) => break,
                Err(StartError::PortInUse) if attempts < 5 => continue,
                Err(StartError::PortInUse) => bail!("no free port found after {attempts} attempts"),
                Err(StartError::Failed(e)) => return Err(e),
            }
        }
        let read = self
            .launcher
            .secure_and_read_back(&self.state, &self.access)?;
        self.check_applied(read.not_applied)?;
        self.variables = read.variables;
        self.started()
    }

    /// Stop the server and name the options that did not take effect, if any.
    fn check_applied(&mut self, bad: Vec<(ServerOption, String)>) -> Result<()> {
        if bad.is_empty() {
            return Ok(());
        }
        let what: Vec<String> = bad
            .iter()
            .map(|(o, v)| format!("{} (server reports {v})", o.display()))
            .collect();
        let _ = self.shutdown();
        bail!(
            "sandbox '{}': option did not take effect: {}",
            self.state.name,
            what.join(", ")
        );
    }

    fn started(&mut self) -> Result<()> {
        self.state.started_unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        self.state.save()
    }

    fn launch(&mut self) -> Result<()> {
        let s = &self.state;
        let bin = &s.binaries;
        let args = self.launcher.args(s, &self.access);
        let mut cmd = match self.spec.wrapper.split_first() {
            Some((prog, wargs)) => {
                let mut c = bin.command(Path::new(prog));
                c.args(wargs).arg(&bin.server);
                c
            }
            None => bin.command(&bin.server),
        };
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(s.dir.join("run/server.out"))?;
        cmd.args(&args)
            .current_dir(&s.dir)
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            // Its own process group: a ^C at the terminal reaches psbench, which stops it.
            .process_group(0);
        // As root, the whole process (a wrapper such as valgrind included) runs as the
        // server's account from exec on, so nothing it creates belongs to root.
        let ids = self.access.server_account().map(|a| (a.uid, a.gid));
        let detached = self.spec.detached;
        // Threads and children inherit it: the server's whole tree runs there.
        let cpus = self.spec.cpus.as_ref().map(CpuList::to_set);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if let Some(set) = &cpus {
                    sched_setaffinity(Pid::from_raw(0), set)?;
                }
                if let Some((uid, gid)) = ids {
                    account::become_ids(uid, gid)?;
                }
                if !detached {
                    // Even if psbench is killed outright, the server does not outlive it
                    // (after the uid change, which clears this setting).
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                }
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("starting {}", bin.server.display()))?;
        let id = ProcessId::of(child.id() as i32)?;
        self.registry_key = Some(registry::register(id, self.state.stop_signal()));
        self.state.process = Some(id);
        self.child = Some(child);
        Ok(())
    }

    fn wait_ready(&mut self, log_from: u64) -> std::result::Result<(), StartError> {
        let start = Instant::now();
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                self.forget_process();
                let log = errorlog::since(&self.state.error_log, log_from);
                return Err(match self.launcher.diagnose(&log) {
                    StartFailure::PortInUse => StartError::PortInUse,
                    StartFailure::RejectedOption { option, line } => {
                        StartError::Failed(usage(format!(
                            "sandbox '{}': the server rejected option '{option}': {line}",
                            self.state.name
                        )))
                    }
                    StartFailure::Other { lines } => StartError::Failed(anyhow!(
                        "sandbox '{}': server exited during start-up ({status}); its error log {} says:\n{lines}",
                        self.state.name,
                        self.state.error_log.display()
                    )),
                });
            }
            if self.launcher.is_ready(&self.state) {
                return Ok(());
            }
            if start.elapsed() > self.spec.ready_timeout {
                let _ = self.shutdown();
                let log = errorlog::since(&self.state.error_log, log_from);
                return Err(StartError::Failed(anyhow!(
                    "sandbox '{}': server not ready after {:?}; last lines of {}:\n{}",
                    self.state.name,
                    self.spec.ready_timeout,
                    self.state.error_log.display(),
                    errorlog::tail(&log, 10)
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn forget_process(&mut self) {
        if let Some(k) = self.registry_key.take() {
            registry::unregister(k);
        }
        self.child = None;
        self.state.process = None;
    }

    /// Stop the server (SIGTERM, SIGKILL after a bound). Returns whether it shut down cleanly.
    fn shutdown(&mut self) -> Result<bool> {
        let sig = self.state.stop_signal();
        let clean = match (self.state.process, self.child.as_mut()) {
            (Some(id), Some(child)) => id.terminate_with(sig, STOP_GRACE, || {
                let _ = child.try_wait();
            }),
            (Some(id), None) => id.terminate_with(sig, STOP_GRACE, || {}),
            _ => true,
        };
        if let Some(c) = self.child.as_mut() {
            let _ = c.wait();
        }
        self.forget_process();
        let _ = self.state.save();
        Ok(clean)
    }

    /// Stop the server and keep the directory (its datadir can be snapshotted or reused).
    pub fn stop(mut self) -> Result<bool> {
        self.shutdown()
    }

    /// Stop, then start again with other options on the same datadir.
    pub fn restart_with(&mut self, options: Vec<ServerOption>) -> Result<()> {
        self.shutdown()?;
        self.spec.options = options;
        self.state.options = options::merge(
            self.launcher.defaults(&self.state.binaries),
            &self.spec.options,
        );
        self.boot()
    }

    /// Stop cleanly and copy the datadir to `dest`, for later sandboxes to start from.
    pub fn snapshot(&mut self, dest: &Path) -> Result<()> {
        if !self.shutdown()? {
            bail!(
                "sandbox '{}' did not shut down cleanly; not snapshotting its datadir",
                self.state.name
            );
        }
        if dest.exists() {
            std::fs::remove_dir_all(dest)
                .with_context(|| format!("replacing snapshot {}", dest.display()))?;
        }
        datadir::copy(&self.state.datadir, dest)
    }

    /// Leave the server running after this process exits; returns what is needed to find it.
    pub fn detach(mut self) -> SandboxState {
        if let Some(k) = self.registry_key.take() {
            registry::unregister(k);
        }
        self.child = None;
        self.state.clone()
    }

    pub fn is_running(&mut self) -> bool {
        if let Some(c) = self.child.as_mut() {
            if let Ok(Some(_)) = c.try_wait() {
                return false;
            }
        }
        self.state.is_running()
    }

    pub fn state(&self) -> &SandboxState {
        &self.state
    }
    pub fn name(&self) -> &str {
        &self.state.name
    }
    pub fn port(&self) -> u16 {
        self.state.port
    }
    pub fn socket(&self) -> &Path {
        &self.state.socket
    }
    pub fn pid(&self) -> Option<i32> {
        self.state.process.map(|p| p.pid)
    }
    pub fn error_log(&self) -> &Path {
        &self.state.error_log
    }
    pub fn binaries(&self) -> &Binaries {
        &self.state.binaries
    }
    /// `SHOW GLOBAL VARIABLES` as read right after start.
    pub fn variables(&self) -> &BTreeMap<String, String> {
        &self.variables
    }
    /// root over the unix socket.
    pub fn admin_endpoint(&self) -> Endpoint {
        self.state.admin_endpoint()
    }
    /// root (PostgreSQL: postgres) over TCP on 127.0.0.1, with the sandbox's password.
    pub fn tcp_endpoint(&self) -> Endpoint {
        self.state
            .tcp_endpoint_with(Some(self.access.password().to_string()))
    }

    /// The OS account the server runs as, when not psbench's own user.
    pub fn server_account(&self) -> Option<&account::Account> {
        self.access.server_account()
    }

    /// How its engine runs it.
    pub fn launcher(&self) -> &'static dyn Launcher {
        self.launcher
    }

    /// The sandbox's root password over TCP (a new one at every start).
    pub fn password(&self) -> &str {
        self.access.password()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if self.child.is_some() {
            let _ = self.shutdown();
        }
    }
}

enum StartError {
    PortInUse,
    Failed(anyhow::Error),
}

pub fn validate_name(name: &str) -> Result<()> {
    if name.is_empty()
        || name.len() > 40
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        || name.starts_with('.')
    {
        return Err(usage(format!(
            "bad sandbox name '{name}': use up to 40 letters, digits, '-', '_' or '.'"
        )));
    }
    Ok(())
}
