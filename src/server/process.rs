//! A server process that psbench started, identified by pid *and* start time so that a
//! recycled pid is never signalled.

use anyhow::Result;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Identity of a process: its pid and its start time in clock ticks since boot
/// (/proc/PID/stat field 22), which together never repeat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessId {
    pub pid: i32,
    pub start_ticks: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcState {
    Running,
    /// Exited but not yet reaped by its parent: as good as gone.
    Zombie,
    /// No process with this identity exists (gone, or the pid now belongs to another).
    Gone,
}

impl ProcessId {
    pub fn of(pid: i32) -> Result<Self> {
        let stat = procfs::process::Process::new(pid)?.stat()?;
        Ok(ProcessId {
            pid,
            start_ticks: stat.starttime,
        })
    }

    pub fn state(&self) -> ProcState {
        match procfs::process::Process::new(self.pid).and_then(|p| p.stat()) {
            Ok(stat) if stat.starttime == self.start_ticks => {
                if stat.state == 'Z' || stat.state == 'X' {
                    ProcState::Zombie
                } else {
                    ProcState::Running
                }
            }
            _ => ProcState::Gone,
        }
    }

    pub fn is_running(&self) -> bool {
        self.state() == ProcState::Running
    }

    /// Send a signal, only if the pid still belongs to the process we started.
    pub fn signal(&self, sig: Signal) -> bool {
        self.is_running() && kill(Pid::from_raw(self.pid), sig).is_ok()
    }

    /// SIGTERM, wait up to `grace`, then SIGKILL and wait a little more.
    /// Returns true when the server shut down by itself (clean shutdown).
    pub fn terminate(&self, grace: Duration, reap: impl FnMut()) -> bool {
        self.terminate_with(Signal::SIGTERM, grace, reap)
    }

    /// As `terminate`, asking with `first` (PostgreSQL's fast shutdown is SIGINT: its SIGTERM
    /// waits for every client to leave).
    pub fn terminate_with(&self, first: Signal, grace: Duration, mut reap: impl FnMut()) -> bool {
        if !self.signal(first) {
            reap();
            return true;
        }
        if self.wait_gone(grace, &mut reap) {
            return true;
        }
        self.signal(Signal::SIGKILL);
        self.wait_gone(Duration::from_secs(5), &mut reap);
        false
    }

    /// Poll until the process is gone or a zombie; `reap` lets the parent collect it meanwhile.
    pub fn wait_gone(&self, limit: Duration, reap: &mut impl FnMut()) -> bool {
        let start = Instant::now();
        loop {
            reap();
            if self.state() != ProcState::Running {
                return true;
            }
            if start.elapsed() >= limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_survives_only_for_the_same_process() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let id = ProcessId::of(child.id() as i32).unwrap();
        assert_eq!(id.state(), ProcState::Running);
        let other = ProcessId {
            start_ticks: id.start_ticks + 1,
            ..id
        };
        assert_eq!(other.state(), ProcState::Gone);
        assert!(
            !other.signal(Signal::SIGTERM),
            "a recycled pid is never signalled"
        );
        assert!(id.terminate(Duration::from_secs(5), || {
            let _ = child.try_wait();
        }));
        assert_eq!(id.state(), ProcState::Gone);
    }
}
