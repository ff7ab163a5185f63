//! Where and with what a result was measured: the host, the tool, each variant's server.

use crate::probes::PfsState;
use crate::server::ServerOption;
use procfs::{Current, CurrentSI};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cpus: u32,
    pub memory_mb: u64,
}

impl Host {
    pub fn current() -> Host {
        let read = |p: &str| {
            std::fs::read_to_string(p)
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        let cpu_model = procfs::CpuInfo::current()
            .ok()
            .and_then(|c| c.model_name(0).map(str::to_string))
            .unwrap_or_default();
        let cpus = procfs::KernelStats::current()
            .map(|k| k.cpu_time.len() as u32)
            .unwrap_or(0);
        let memory_mb = procfs::Meminfo::current()
            .map(|m| m.mem_total >> 20)
            .unwrap_or(0);
        Host {
            hostname: read("/proc/sys/kernel/hostname"),
            kernel: read("/proc/sys/kernel/osrelease"),
            cpu_model,
            cpus,
            memory_mb,
        }
    }
}

/// What a variant really ran: binary, version, the options passed, the server's effective
/// variables and performance_schema set, as read after start.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VariantProvenance {
    pub server_binary: String,
    /// SHA-256 of the server binary: which exact build ran.
    #[serde(default)]
    pub server_sha256: String,
    pub server_version: String,
    pub options: Vec<ServerOption>,
    pub sql: Vec<String>,
    pub variables: BTreeMap<String, String>,
    pub pfs: PfsState,
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_this_host() {
        let h = super::Host::current();
        assert!(
            h.cpus >= 1 && h.memory_mb > 0 && !h.kernel.is_empty(),
            "{h:?}"
        );
    }
}
