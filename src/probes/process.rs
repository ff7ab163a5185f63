//! Resource counters of one process (all its threads) from /proc/PID: CPU time, context
//! switches, bytes read and written by storage, resident memory.

use anyhow::{Context, Result};
use procfs::process::Process;
use serde::{Deserialize, Serialize};

/// One reading of a process's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcSample {
    /// User + system CPU time of all threads, microseconds.
    pub cpu_us: u64,
    pub voluntary_cs: u64,
    pub involuntary_cs: u64,
    /// Bytes the process caused to be read from / written to storage (/proc/PID/io).
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub rss_bytes: u64,
}

impl ProcSample {
    pub fn of(pid: i32) -> Result<Self> {
        let p = Process::new(pid).with_context(|| format!("reading /proc/{pid}"))?;
        let stat = p
            .stat()
            .with_context(|| format!("reading /proc/{pid}/stat"))?;
        // /proc/PID/status counts context switches of the main thread only: sum the tasks.
        let (mut voluntary_cs, mut involuntary_cs) = (0, 0);
        for task in p
            .tasks()
            .with_context(|| format!("reading /proc/{pid}/task"))?
            .flatten()
        {
            if let Ok(st) = task.status() {
                voluntary_cs += st.voluntary_ctxt_switches.unwrap_or(0);
                involuntary_cs += st.nonvoluntary_ctxt_switches.unwrap_or(0);
            }
        }
        // /proc/PID/io needs ptrace access; a missing reading is zero, not an error.
        let io = p.io().ok();
        let tps = procfs::ticks_per_second();
        Ok(ProcSample {
            cpu_us: (stat.utime + stat.stime) * 1_000_000 / tps,
            voluntary_cs,
            involuntary_cs,
            read_bytes: io.as_ref().map(|i| i.read_bytes).unwrap_or(0),
            write_bytes: io.as_ref().map(|i| i.write_bytes).unwrap_or(0),
            rss_bytes: stat.rss * procfs::page_size(),
        })
    }

    pub fn of_self() -> Result<Self> {
        Self::of(std::process::id() as i32)
    }

    /// Counters accumulated since `earlier` (RSS is the later value).
    pub fn since(&self, earlier: &ProcSample) -> ProcSample {
        ProcSample {
            cpu_us: self.cpu_us.saturating_sub(earlier.cpu_us),
            voluntary_cs: self.voluntary_cs.saturating_sub(earlier.voluntary_cs),
            involuntary_cs: self.involuntary_cs.saturating_sub(earlier.involuntary_cs),
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
            rss_bytes: self.rss_bytes,
        }
    }

    pub fn context_switches(&self) -> u64 {
        self.voluntary_cs + self.involuntary_cs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_cpu_time_grows_with_work() {
        let a = ProcSample::of_self().unwrap();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed() < std::time::Duration::from_millis(300) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let d = ProcSample::of_self().unwrap().since(&a);
        assert!(d.cpu_us >= 100_000, "{d:?}");
        assert!(d.rss_bytes > 0);
    }
}
