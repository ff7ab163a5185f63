//! Whole-machine CPU busy time from /proc/stat, to tell how much CPU processes other than the
//! server and the client took during a measurement ("foreign" CPU).

use anyhow::{Context, Result};
use procfs::{CurrentSI, KernelStats};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineSample {
    /// CPU time spent not idle, summed over all CPUs, microseconds (user, nice, system, irq, softirq).
    pub busy_us: u64,
    /// Time the hypervisor gave to others, microseconds.
    pub steal_us: u64,
    pub cpus: u32,
}

impl MachineSample {
    pub fn now() -> Result<Self> {
        let ks = KernelStats::current().context("reading /proc/stat")?;
        let t = &ks.total;
        let ticks = t.user + t.nice + t.system + t.irq.unwrap_or(0) + t.softirq.unwrap_or(0);
        let tps = procfs::ticks_per_second();
        Ok(MachineSample {
            busy_us: ticks * 1_000_000 / tps,
            steal_us: t.steal.unwrap_or(0) * 1_000_000 / tps,
            cpus: ks.cpu_time.len() as u32,
        })
    }

    pub fn since(&self, earlier: &MachineSample) -> MachineSample {
        MachineSample {
            busy_us: self.busy_us.saturating_sub(earlier.busy_us),
            steal_us: self.steal_us.saturating_sub(earlier.steal_us),
            cpus: self.cpus,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_proc_stat() {
        let a = super::MachineSample::now().unwrap();
        assert!(a.cpus >= 1);
        assert!(a.busy_us > 0);
    }
}
