//! A study's `cpus` key: the CPUs its servers and psbench's client run on. Both lists must be
//! among the CPUs psbench may use; the client's is applied to the thread that starts the
//! client threads, the server's to every server a variant starts.

use crate::error::usage;
use crate::results::study::Study;
use crate::results::CpuList;
use anyhow::Result;

/// Each list given is among the CPUs psbench may use (else a one-line usage error).
pub fn check(study: &Study) -> Result<()> {
    let allowed = crate::probes::cpus::allowed();
    for (what, list) in [
        ("server", &study.cpus.server),
        ("client", &study.cpus.client),
    ] {
        let Some(list) = list else { continue };
        let outside = list.outside(allowed);
        if !outside.is_empty() {
            return Err(usage(format!(
                "cpus.{what} = \"{list}\": {} outside the CPUs psbench may use here ({allowed})",
                outside.named()
            )));
        }
    }
    Ok(())
}

/// The CPUs a variant's server runs on: the study's server list; with only a client list,
/// every CPU psbench may use (a server started while the client is placed would otherwise
/// inherit the client's); with neither, `None` (left to the kernel, nothing recorded).
pub fn server_cpus(study: &Study) -> Option<CpuList> {
    match (&study.cpus.server, &study.cpus.client) {
        (Some(s), _) => Some(s.clone()),
        (None, Some(_)) => Some(crate::probes::cpus::allowed().clone()),
        (None, None) => None,
    }
}

/// Place the calling thread, which starts the client threads, on the study's client list
/// until the returned guard is dropped.
pub fn place_client(study: &Study) -> Result<Option<crate::driver::Placed>> {
    // Kept before narrowing: machine-wide figures count every CPU psbench may use.
    crate::probes::cpus::allowed();
    study
        .cpus
        .client
        .as_ref()
        .map(|l| crate::driver::place_this_thread(l, "cpus.client"))
        .transpose()
}
