//! CPU time of the CPUs psbench may use, from /proc/stat: how much processes other than the
//! server and the client took during a measurement ("foreign" CPU), whether the CPUs were
//! saturated, and how much time the hypervisor stole. CPUs outside psbench's affinity are
//! left out: another tenant's work there neither slows nor saturates the cell.

use crate::results::{CpuList, HOST_SATURATED_SHARE};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineSample {
    /// CPU time spent not idle, summed over the allowed CPUs, microseconds (user, nice,
    /// system, irq, softirq).
    pub busy_us: u64,
    /// Time the hypervisor gave to others, microseconds.
    pub steal_us: u64,
    /// Every field (idle, iowait and steal included): the CPU time that passed.
    #[serde(default)]
    pub total_us: u64,
    /// CPUs counted.
    pub cpus: u32,
}

/// One `cpuN` line of /proc/stat: N and its fields in ticks (user nice system idle iowait
/// irq softirq steal; guest time is already inside user).
fn cpu_lines(text: &str) -> Vec<(usize, [u64; 8])> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let n = it.next()?.strip_prefix("cpu")?.parse().ok()?;
            let mut f = [0u64; 8];
            for (slot, v) in f.iter_mut().zip(it) {
                *slot = v.parse().ok()?;
            }
            Some((n, f))
        })
        .collect()
}

impl MachineSample {
    /// The CPUs psbench may use, now.
    pub fn now() -> Result<Self> {
        let text = std::fs::read_to_string("/proc/stat").context("reading /proc/stat")?;
        Ok(Self::of(
            &text,
            super::cpus::allowed(),
            procfs::ticks_per_second(),
        ))
    }

    /// The CPUs of `allowed` in /proc/stat's `text`.
    pub fn of(text: &str, allowed: &CpuList, ticks_per_second: u64) -> Self {
        let (mut busy, mut steal, mut total, mut cpus) = (0, 0, 0, 0);
        for (n, f) in cpu_lines(text) {
            if !allowed.cpus().contains(&n) {
                continue;
            }
            busy += f[0] + f[1] + f[2] + f[5] + f[6];
            steal += f[7];
            total += f.iter().sum::<u64>();
            cpus += 1;
        }
        let us = |ticks: u64| ticks * 1_000_000 / ticks_per_second.max(1);
        MachineSample {
            busy_us: us(busy),
            steal_us: us(steal),
            total_us: us(total),
            cpus,
        }
    }

    pub fn since(&self, earlier: &MachineSample) -> MachineSample {
        MachineSample {
            busy_us: self.busy_us.saturating_sub(earlier.busy_us),
            steal_us: self.steal_us.saturating_sub(earlier.steal_us),
            total_us: self.total_us.saturating_sub(earlier.total_us),
            cpus: self.cpus,
        }
    }

    /// The share of the CPUs' time that was busy or stolen (not available to the cell).
    pub fn used_share(&self) -> f64 {
        if self.total_us == 0 {
            return 0.0;
        }
        (self.busy_us + self.steal_us) as f64 / self.total_us as f64
    }

    /// Over a window: server, client and every other process left the CPUs psbench may use
    /// almost no idle time.
    pub fn saturated(&self) -> bool {
        self.used_share() > HOST_SATURATED_SHARE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_proc_stat() {
        let a = MachineSample::now().unwrap();
        assert!(a.cpus >= 1);
        assert!(a.busy_us > 0 && a.total_us > a.busy_us);
    }

    const STAT: &str = "cpu  900 0 300 800 0 0 0 0 0 0\n\
                        cpu0 100 0 50 700 0 0 0 0 0 0\n\
                        cpu1 400 0 100 50 0 0 0 50 0 0\n\
                        cpu2 400 0 150 50 0 0 0 0 0 0\n\
                        intr 1 2 3\n";

    #[test]
    fn counts_only_the_allowed_cpus() {
        let two = CpuList::parse("1-2").unwrap();
        let s = MachineSample::of(STAT, &two, 100);
        assert_eq!(s.cpus, 2);
        assert_eq!(
            (s.busy_us, s.steal_us, s.total_us),
            (10_500_000, 500_000, 12_000_000)
        );
        let all = MachineSample::of(STAT, &CpuList::parse("0-2").unwrap(), 100);
        assert_eq!(all.cpus, 3);
        assert_eq!(all.busy_us, 12_000_000);
    }

    #[test]
    fn saturation_is_busy_and_stolen_time_above_the_share() {
        let window = |busy_s: f64, steal_s: f64, wall_s: f64, cpus: u32| MachineSample {
            busy_us: (busy_s * 1e6) as u64,
            steal_us: (steal_s * 1e6) as u64,
            total_us: (wall_s * cpus as f64 * 1e6) as u64,
            cpus,
        };
        // 4 threads of point selects on 2 cores, as measured: server 1.35 cores, client 0.64.
        assert!(window(1.99 * 10.0, 0.0, 10.0, 2).saturated());
        // The same on 8 allowed CPUs leaves six idle.
        assert!(!window(1.99 * 10.0, 0.0, 10.0, 8).saturated());
        // 1 thread: server 0.6, client 0.3 of a core on 2 cores.
        assert!(!window(0.9 * 10.0, 0.0, 10.0, 2).saturated());
        // Busy 1.7 cores and 0.2 stolen by the hypervisor: nothing was left.
        assert!(window(17.0, 2.0, 10.0, 2).saturated());
        // Exactly 90% is not above the share.
        assert!(!window(18.0, 0.0, 10.0, 2).saturated());
        assert_eq!(MachineSample::default().used_share(), 0.0);
    }
}
