//! `perf record` on the server process for a window, and `perf script` of what it caught.
//! Only the perf processes started here are ever signalled, by their own pid.

use anyhow::{bail, Context, Result};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PERF: &str = "perf";

/// A software clock (the VM has no PMU) with frame-pointer call graphs.
fn record_command(pid: i32, frequency: u32, data: &Path) -> Command {
    let mut c = Command::new(PERF);
    c.args(["record", "-e", "cpu-clock", "-F"])
        .arg(frequency.to_string())
        .args(["-g", "-p"])
        .arg(pid.to_string())
        .arg("-o")
        .arg(data);
    c
}

/// Why profiles cannot be taken of `pid` here, or `None` when a short `perf record` works.
pub fn unavailable(pid: i32) -> Option<String> {
    let data = std::env::temp_dir().join(format!("psbench-perf-trial-{}.data", std::process::id()));
    let out = record_command(pid, 99, &data)
        .args(["--", "sleep", "0.2"])
        .stdin(Stdio::null())
        .output();
    let recorded = data.is_file();
    let _ = std::fs::remove_file(&data);
    match out {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Some("perf is not installed (Debian: apt-get install linux-perf)".into())
        }
        Err(e) => Some(format!("perf could not be run: {e}")),
        Ok(o) if !o.status.success() || !recorded => {
            let err = String::from_utf8_lossy(&o.stderr);
            let hint = if err.contains("paranoid") || err.contains("ermission") {
                " (kernel.perf_event_paranoid forbids it for this user: run as root or lower it with sysctl)"
            } else {
                ""
            };
            let first = err
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("no message");
            Some(format!("perf record failed{hint}: {first}"))
        }
        Ok(_) => None,
    }
}

/// A `perf record` running against the server.
pub struct Recording {
    child: Option<Child>,
    data: PathBuf,
    started: Instant,
}

/// Start sampling `pid` into `data`; returns once perf has confirmed that its events are
/// enabled. perf starts with them disabled and is enabled through its control fifo: waiting
/// for its output file alone is not enough, as perf creates it before it has attached to
/// every thread, and on a busy host that took longer than a whole window.
pub fn start(pid: i32, frequency: u32, data: &Path) -> Result<Recording> {
    let _ = std::fs::remove_file(data);
    let ctl = data.with_extension("ctl");
    let ack = data.with_extension("ack");
    for f in [&ctl, &ack] {
        let _ = std::fs::remove_file(f);
        nix::unistd::mkfifo(
            f.as_path(),
            nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR,
        )
        .with_context(|| format!("creating the fifo {}", f.display()))?;
    }
    let child = record_command(pid, frequency, data)
        .args(["--quiet", "--delay=-1", "--control"])
        .arg(format!("fifo:{},{}", ctl.display(), ack.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting perf record")?;
    let mut rec = Recording {
        child: Some(child),
        data: data.to_path_buf(),
        started: Instant::now(),
    };
    let enabled = rec.enable(&ctl, &ack, pid);
    let _ = std::fs::remove_file(&ctl);
    let _ = std::fs::remove_file(&ack);
    enabled?;
    rec.started = Instant::now();
    Ok(rec)
}

impl Recording {
    /// Bail out when perf has exited, with what it said.
    fn check_alive(&mut self, pid: i32) -> Result<()> {
        if let Some(status) = self
            .child
            .as_mut()
            .and_then(|c| c.try_wait().ok().flatten())
        {
            let err = self.take_stderr();
            bail!(
                "perf record on pid {pid} exited at start ({status}): {}",
                err.trim()
            );
        }
        Ok(())
    }

    /// Write `enable` into perf's control fifo and wait for its `ack`.
    fn enable(&mut self, ctl: &Path, ack: &Path, pid: i32) -> Result<()> {
        use std::io::{Read, Write};
        use std::os::unix::fs::OpenOptionsExt;
        let deadline = Instant::now() + Duration::from_secs(20);
        let late = || anyhow::anyhow!("perf record on pid {pid} did not start within 20 s");
        // Opening a fifo for writing without blocking fails until perf has opened it to read.
        let mut control = loop {
            self.check_alive(pid)?;
            match std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(ctl)
            {
                Ok(f) => break f,
                Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => return Err(late()),
            }
        };
        let mut acks = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(ack)
            .with_context(|| format!("opening {}", ack.display()))?;
        control
            .write_all(b"enable\n")
            .context("writing to perf's control fifo")?;
        let mut answer = Vec::new();
        let mut buf = [0u8; 64];
        while !String::from_utf8_lossy(&answer).contains("ack") {
            self.check_alive(pid)?;
            match acks.read(&mut buf) {
                Ok(n) if n > 0 => answer.extend_from_slice(&buf[..n]),
                _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => return Err(late()),
            }
        }
        Ok(())
    }

    fn take_stderr(&mut self) -> String {
        let mut s = String::new();
        if let Some(mut e) = self.child.as_mut().and_then(|c| c.stderr.take()) {
            let _ = std::io::Read::read_to_string(&mut e, &mut s);
        }
        s
    }

    /// Stop sampling (SIGINT, as perf expects) and wait for perf to write its data.
    pub fn stop(mut self) -> Result<Stopped> {
        let seconds = self.started.elapsed().as_secs_f64();
        let mut child = self.child.take().context("perf record already stopped")?;
        let pid = child.id() as i32;
        let _ = kill(Pid::from_raw(pid), Signal::SIGINT);
        let (status, cpu_us) = wait_with_cpu(pid).context("waiting for perf record")?;
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut err);
        }
        // perf exits 0 after SIGINT; killed by the signal itself also leaves a valid file.
        let failed = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) != 0;
        if failed {
            bail!(
                "perf record failed (exit {}): {}",
                libc::WEXITSTATUS(status),
                err.trim()
            );
        }
        Ok(Stopped {
            data: self.data.clone(),
            seconds,
            perf_cpu_us: cpu_us,
        })
    }
}

/// What a stopped recording left.
pub struct Stopped {
    pub data: PathBuf,
    /// Seconds between enabling and stopping.
    pub seconds: f64,
    /// CPU perf itself used, so that a cell does not count it as another process's.
    pub perf_cpu_us: u64,
}

/// Reap `pid` and return its wait status and the CPU (user + system) it used.
fn wait_with_cpu(pid: i32) -> Result<(i32, u64)> {
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid and wait4 only writes into the two out-pointers.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own child, the pointers are to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e.into());
        }
    }
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Ok((status, us(usage.ru_utime) + us(usage.ru_stime)))
}

impl Drop for Recording {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = kill(Pid::from_raw(c.id() as i32), Signal::SIGINT);
            let deadline = Instant::now() + Duration::from_secs(5);
            while matches!(c.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            if matches!(c.try_wait(), Ok(None)) {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

/// `perf script` of a data file: one block per sample with its call chain.
pub fn script(data: &Path) -> Result<String> {
    let out = Command::new(PERF)
        .args(["script", "-i"])
        .arg(data)
        .stdin(Stdio::null())
        .output()
        .context("running perf script")?;
    if !out.status.success() {
        bail!(
            "perf script -i {} failed: {}",
            data.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    String::from_utf8(out.stdout).context("perf script printed non-UTF-8 text")
}
