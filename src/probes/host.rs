//! The host a study ran on, for its provenance.

use crate::results::{CpuList, Host};
use procfs::{Current, CurrentSI};

/// This machine's name: `PSBENCH_HOST_NAME` when set (a scheduler's pod or node name, or a
/// test's pretend host), else the kernel's host name.
pub fn name() -> String {
    match std::env::var("PSBENCH_HOST_NAME") {
        Ok(n) if !n.trim().is_empty() => n.trim().to_string(),
        _ => std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
    }
}

/// This machine: hostname, kernel, CPU model and count, memory, whether it is virtualised.
pub fn current() -> Host {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    let info = procfs::CpuInfo::current().ok();
    let cpu_model = info
        .as_ref()
        .and_then(|c| c.model_name(0).map(str::to_string))
        .unwrap_or_default();
    let virtualised = info
        .as_ref()
        .and_then(|c| c.flags(0))
        .map(|flags| flags.contains(&"hypervisor"));
    let cpus = procfs::KernelStats::current()
        .map(|k| k.cpu_time.len() as u32)
        .unwrap_or(0);
    let memory_mb = procfs::Meminfo::current()
        .map(|m| m.mem_total >> 20)
        .unwrap_or(0);
    Host {
        hostname: name(),
        kernel: read("/proc/sys/kernel/osrelease"),
        cpu_model,
        cpus,
        memory_mb,
        virtualised,
    }
}

/// What moves the CPUs' clock: the scaling_governor of each CPU in `cpus` that exposes one
/// ("performance", or "powersave on 0-3, performance on 4-7"), or "not exposed" (most
/// virtual machines).
pub fn governor(cpus: &CpuList) -> String {
    let mut seen: Vec<(String, Vec<usize>)> = Vec::new();
    for &c in cpus.cpus() {
        let path = format!("/sys/devices/system/cpu/cpu{c}/cpufreq/scaling_governor");
        let Ok(g) = std::fs::read_to_string(path) else {
            continue;
        };
        let g = g.trim().to_string();
        match seen.iter_mut().find(|(name, _)| *name == g) {
            Some((_, of)) => of.push(c),
            None => seen.push((g, vec![c])),
        }
    }
    match seen.as_slice() {
        [] => "not exposed".into(),
        [(only, of)] if of.len() == cpus.len() => only.clone(),
        _ => seen
            .into_iter()
            .map(|(g, of)| format!("{g} on {}", CpuList::of(of)))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_this_host() {
        let h = super::current();
        assert!(
            h.cpus >= 1 && h.memory_mb > 0 && !h.kernel.is_empty(),
            "{h:?}"
        );
        assert!(!super::governor(crate::probes::cpus::allowed()).is_empty());
    }
}
