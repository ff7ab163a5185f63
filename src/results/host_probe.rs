//! What a study measured about its host before and around its cells: how long a thread takes
//! to wake another (the round trip a blocking client and server make per statement), the time
//! the hypervisor stole, the CPU frequency governor; and where a variant's server and client
//! ran when the study placed them.

use super::cpus::CpuList;
use serde::{Deserialize, Serialize};

/// One host's probe (a merged study holds one per host).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostProbe {
    pub host: String,
    /// The CPUs psbench may use (its affinity when the study started).
    pub cpus_allowed: CpuList,
    /// Two threads passing one byte back and forth over a unix socket pair, each blocked in
    /// read until the other writes; absent when the probe could not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeup: Option<Wakeup>,
    /// scaling_governor of the allowed CPUs, or "not exposed".
    pub governor: String,
    /// CPU time the hypervisor gave to others while the study ran, and all CPU time of the
    /// allowed CPUs in the same span (seconds, summed over the runs of a resumed study).
    #[serde(default)]
    pub steal_s: f64,
    #[serde(default)]
    pub cpu_time_s: f64,
}

/// Median round trips, microseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Wakeup {
    /// The two threads on different CPUs (`cross_cpus`); absent when only one CPU is allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_cpu_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_cpus: Option<[usize; 2]>,
    /// Both threads on one CPU (`same_cpu`).
    pub same_cpu_us: f64,
    pub same_cpu: usize,
    /// Round trips behind each median (fewer than asked when the time limit came first).
    pub round_trips: u32,
}

impl HostProbe {
    /// The share of CPU time stolen, when the study's finish was reached at least once.
    pub fn steal_share(&self) -> Option<f64> {
        (self.cpu_time_s > 0.0).then(|| self.steal_s / self.cpu_time_s)
    }
}

/// Where a variant's server and psbench's client ran, as the kernel read it back after the
/// server started (`Cpus_allowed_list` of every thread).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Each distinct list among the server's threads (one when all agree).
    pub server: Vec<CpuList>,
    /// Threads read (every thread of every process of the server).
    pub server_threads: u32,
    /// The thread that starts psbench's client threads, which inherit its list.
    pub client: CpuList,
}
