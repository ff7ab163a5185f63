//! Cells flagged host-saturated: the server, the client and everything else kept the CPUs
//! psbench may use busy, so a throughput there is the host's capacity shared between server
//! and client as much as the server's. The report names them wherever it calls a change.

use crate::report::cells::rounds;
use crate::results::{Flag, StudyResults, HOST_SATURATED_SHARE};

/// Whether any round of a (variant, step, threads) was saturated.
pub fn saturated(res: &StudyResults, variant: &str, step: &str, threads: u32) -> bool {
    rounds(res, variant, step, threads).any(|c| c.flags.contains(&Flag::HostSaturated))
}

fn any(res: &StudyResults) -> bool {
    res.cells
        .iter()
        .any(|c| c.flags.contains(&Flag::HostSaturated))
}

/// The flag as the Validity note lists it after the others, when a cell carries it.
pub fn flag_note(res: &StudyResults) -> String {
    if !any(res) {
        return String::new();
    }
    format!(
        ", host-saturated (server, client and other processes kept more than {:.0}% of the CPUs psbench may use busy; not retried)",
        HOST_SATURATED_SHARE * 100.0
    )
}

/// The Validity table's legend line when a cell is saturated.
pub fn legend(res: &StudyResults) -> Vec<String> {
    if !res
        .cells
        .iter()
        .any(|c| c.flags.contains(&Flag::HostSaturated))
    {
        return Vec::new();
    }
    vec![format!(
        "host-saturated: the CPUs psbench may use were busy (or stolen by the hypervisor) more than {:.0}% of the cell's time, so server and client competed for them: its throughput measures the host as much as the server. Measuring again would not help; fewer threads, or server and client on CPUs of their own (the study's cpus key), would.",
        HOST_SATURATED_SHARE * 100.0
    )]
}
