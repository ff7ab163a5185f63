//! The host probe of a study: at its start, how long a wake-up takes between two CPUs and on
//! one, and the CPU frequency governor; over its run, the time the hypervisor stole. Recorded
//! once per host (a resumed study keeps its first probe and adds the steal of each run).

use crate::probes::{cpus, host, wakeup, MachineSample};
use crate::results::{HostProbe, StudyResults};

/// The steal counters when this run began.
pub struct Started {
    host: String,
    at: Option<MachineSample>,
}

/// Probe this host unless the document already holds its probe; under a second either way.
pub fn start(res: &mut StudyResults) -> Started {
    let name = host::name();
    if !res.host_probes.iter().any(|p| p.host == name) {
        let allowed = cpus::allowed();
        let wakeup = match wakeup::measure(allowed) {
            Ok(w) => Some(w),
            Err(e) => {
                res.notes
                    .push(format!("the wake-up probe could not run on {name}: {e:#}"));
                None
            }
        };
        res.host_probes.push(HostProbe {
            host: name.clone(),
            cpus_allowed: allowed.clone(),
            wakeup,
            governor: host::governor(allowed),
            steal_s: 0.0,
            cpu_time_s: 0.0,
        });
    }
    Started {
        host: name,
        at: MachineSample::now().ok(),
    }
}

/// Add this run's stolen and total CPU time to its host's probe.
pub fn finish(res: &mut StudyResults, started: &Started) {
    let (Some(at), Ok(now)) = (started.at, MachineSample::now()) else {
        return;
    };
    let run = now.since(&at);
    if let Some(p) = res.host_probes.iter_mut().find(|p| p.host == started.host) {
        p.steal_s += run.steal_us as f64 / 1e6;
        p.cpu_time_s += run.total_us as f64 / 1e6;
    }
}
