//! What this machine lets the client run: a thread and a connection (an open file) per client
//! thread, and memory for each. A count beyond it is refused before anything starts, naming the
//! limit, instead of failing midway through a study.

use crate::error::usage;
use anyhow::Result;

/// Open files beside the connections: the binary, logs, /proc readers, the results file.
const SPARE_FILES: u64 = 64;
/// Threads beside the clients: the collector, probes, the main thread.
const SPARE_THREADS: u64 = 16;
/// Memory one client thread may take: its stack's reservation and a connection's buffers.
/// Measured: oltp_read_only held 1.2 MiB of client RSS per connection at 1,024 connections.
const BYTES_PER_THREAD: u64 = 4 << 20;

/// Raise this process's open-files limit to its hard limit (servers it starts inherit it);
/// returns the limit now in force.
pub fn raise_open_files() -> u64 {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return u64::MAX;
    };
    if soft < hard && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
        return hard;
    }
    soft
}

/// Refuse `threads` client threads when they cannot all run here (after raising the
/// open-files limit as far as this process may).
pub fn check(threads: u64) -> Result<()> {
    let files = raise_open_files();
    if threads + SPARE_FILES > files {
        return Err(usage(format!(
            "{threads} client threads need {} open files (a connection each); this process may open {files} (ulimit -n)",
            threads + SPARE_FILES
        )));
    }
    let (procs, _) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NPROC)
        .unwrap_or((u64::MAX, u64::MAX));
    let threads_max = std::fs::read_to_string("/proc/sys/kernel/threads-max")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(u64::MAX);
    let thread_limit = procs.min(threads_max);
    if threads + SPARE_THREADS > thread_limit {
        return Err(usage(format!(
            "{threads} client threads exceed the {thread_limit} threads this user may run (ulimit -u, /proc/sys/kernel/threads-max)"
        )));
    }
    if let Some(available) = mem_available() {
        let need = threads.saturating_mul(BYTES_PER_THREAD);
        if need > available {
            return Err(usage(format!(
                "{threads} client threads need about {} MiB of memory; {} MiB is available",
                need >> 20,
                available >> 20
            )));
        }
    }
    Ok(())
}

fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_few_threads_fit_and_a_billion_do_not() {
        super::check(4).unwrap();
        let e = super::check(1_000_000_000).unwrap_err();
        assert!(crate::error::is_usage(&e), "{e}");
    }
}
