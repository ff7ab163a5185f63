//! The client's own CPU time and context switches (getrusage of the whole process), so a
//! run can report client CPU per transaction and per query.

pub use crate::results::bench::CpuUsage;

impl CpuUsage {
    /// This process, all threads, since it started.
    pub fn now() -> CpuUsage {
        // SAFETY: getrusage only writes into the struct we pass.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        if rc != 0 {
            return CpuUsage::default();
        }
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        CpuUsage {
            user_s: secs(ru.ru_utime),
            sys_s: secs(ru.ru_stime),
            voluntary_context_switches: ru.ru_nvcsw as u64,
            involuntary_context_switches: ru.ru_nivcsw as u64,
        }
    }

    /// What was used between `earlier` and `self`.
    pub fn since(&self, earlier: &CpuUsage) -> CpuUsage {
        CpuUsage {
            user_s: self.user_s - earlier.user_s,
            sys_s: self.sys_s - earlier.sys_s,
            voluntary_context_switches: self
                .voluntary_context_switches
                .saturating_sub(earlier.voluntary_context_switches),
            involuntary_context_switches: self
                .involuntary_context_switches
                .saturating_sub(earlier.involuntary_context_switches),
        }
    }

    pub fn total_s(&self) -> f64 {
        self.user_s + self.sys_s
    }

    /// Microseconds of client CPU per unit (transaction or query); 0 when there were none.
    pub fn us_per(&self, n: u64) -> f64 {
        if n == 0 {
            0.0
        } else {
            self.total_s() * 1e6 / n as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_busy_work() {
        let before = CpuUsage::now();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed().as_millis() < 50 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let used = CpuUsage::now().since(&before);
        assert!(used.total_s() > 0.02, "{used:?}");
    }
}
