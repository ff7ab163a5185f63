//! Which CPUs psbench may use, and which CPUs a process's threads may run on as the kernel
//! reads them back (`Cpus_allowed_list` in /proc/PID/task/TID/status).

use crate::results::CpuList;
use anyhow::{Context, Result};
use nix::sched::sched_getaffinity;
use nix::unistd::Pid;
use std::sync::OnceLock;

/// The CPUs psbench may use: the affinity of the thread that first asks, kept for the life
/// of the process. A study asks before it narrows its own threads to the client's CPUs, so
/// that machine-wide figures keep counting every CPU it may use, not the client's.
pub fn allowed() -> &'static CpuList {
    static ALLOWED: OnceLock<CpuList> = OnceLock::new();
    ALLOWED.get_or_init(|| match sched_getaffinity(Pid::from_raw(0)) {
        Ok(set) => CpuList::from_set(&set),
        // Without an answer, every CPU the kernel lists.
        Err(_) => CpuList::of((0..online_cpus()).collect()),
    })
}

fn online_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `Cpus_allowed_list` of one status file's text.
fn allowed_list(status: &str) -> Option<CpuList> {
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?;
    CpuList::parse(line.trim()).ok()
}

/// Every thread of `pid` with the CPUs the kernel lets it run on.
pub fn threads_of(pid: i32) -> Result<Vec<(i32, CpuList)>> {
    let dir = format!("/proc/{pid}/task");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {dir}"))? {
        let path = entry?.path();
        let Some(tid) = path.file_name().and_then(|n| n.to_str()?.parse().ok()) else {
            continue;
        };
        // A thread may end between listing and reading.
        if let Some(list) = std::fs::read_to_string(path.join("status"))
            .ok()
            .and_then(|s| allowed_list(&s))
        {
            out.push((tid, list));
        }
    }
    Ok(out)
}

/// Every thread of `pid` and of its descendants (a server of many processes).
pub fn threads_of_tree(pid: i32) -> Result<Vec<(i32, CpuList)>> {
    let mut out = threads_of(pid)?;
    for child in super::process_tree::descendants(pid).into_iter().skip(1) {
        out.extend(threads_of(child).unwrap_or_default());
    }
    Ok(out)
}

/// The calling thread's list as the kernel reads it back.
pub fn this_thread() -> Result<CpuList> {
    let text = std::fs::read_to_string("/proc/thread-self/status")
        .context("reading /proc/thread-self/status")?;
    allowed_list(&text).context("no Cpus_allowed_list in /proc/thread-self/status")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_this_process() {
        let mine = threads_of(std::process::id() as i32).unwrap();
        assert!(!mine.is_empty());
        assert!(!allowed().is_empty());
        // No test narrows the threads of this binary: each reads back what psbench may use.
        assert_eq!(&this_thread().unwrap(), allowed());
        assert_eq!(
            allowed_list("Name:\tx\nCpus_allowed_list:\t0-2,5\n").map(|l| l.to_string()),
            Some("0-2,5".into())
        );
    }
}
