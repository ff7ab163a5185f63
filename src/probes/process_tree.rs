//! Resource counters of a server that works in many processes (PostgreSQL's postmaster, its
//! backends and background processes): the process and every descendant alive now, plus
//! what the descendants that already ended used. A backend that served a connection and
//! exited is not lost: when the postmaster reaps it, the kernel adds its CPU time to the
//! postmaster's children's times (cutime, cstime) and its storage bytes to the postmaster's
//! /proc/PID/io. Context switches of ended processes are not kept anywhere and are missing.

use super::process::ProcSample;
use anyhow::{Context, Result};
use procfs::process::Process;

/// `pid` and its descendants alive now, `pid` first. Found from every process's parent in
/// /proc/PID/stat: a thread's `children` file can skip a child while another is forked or
/// reaped beside it (the kernel documents it as unreliable then), and a PostgreSQL server
/// starts and ends processes all the time; one skipped backend lost a cell's server CPU.
pub fn descendants(pid: i32) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = procfs::process::all_processes()
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|p| p.stat().ok().map(|s| (s.pid, s.ppid)))
        .collect();
    let mut all = vec![pid];
    let mut i = 0;
    while i < all.len() {
        let p = all[i];
        for (child, _) in parents.iter().filter(|(_, parent)| *parent == p) {
            if !all.contains(child) {
                all.push(*child);
            }
        }
        i += 1;
    }
    all
}

/// One reading of the whole tree under `pid`. RSS is `pid`'s own: the processes share
/// their buffers, and a sum would count those pages once per process.
pub fn sample(pid: i32) -> Result<ProcSample> {
    let mut total = ProcSample::of(pid)?;
    let root = Process::new(pid).with_context(|| format!("reading /proc/{pid}"))?;
    let stat = root
        .stat()
        .with_context(|| format!("reading /proc/{pid}/stat"))?;
    let ended = (stat.cutime.max(0) + stat.cstime.max(0)) as u64;
    total.cpu_us += ended * 1_000_000 / procfs::ticks_per_second();
    for child in descendants(pid).into_iter().skip(1) {
        // A process may end between listing and reading: it is then counted by its
        // parent's times at the next reading.
        if let Ok(s) = ProcSample::of(child) {
            total.cpu_us += s.cpu_us;
            total.voluntary_cs += s.voluntary_cs;
            total.involuntary_cs += s.involuntary_cs;
            total.read_bytes += s.read_bytes;
            total.write_bytes += s.write_bytes;
        }
    }
    Ok(total)
}
