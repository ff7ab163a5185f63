//! Resource counters of a server that works in many processes (PostgreSQL's postmaster, its
//! backends and background processes): the process and every descendant alive now, plus
//! what the descendants that already ended used. A backend that served a connection and
//! exited is not lost: when the postmaster reaps it, the kernel adds its CPU time to the
//! postmaster's children's times (cutime, cstime) and its storage bytes to the postmaster's
//! /proc/PID/io. Context switches of ended processes are not kept anywhere and are missing.

use super::process::ProcSample;
use anyhow::{Context, Result};
use procfs::process::{Process, Stat};

/// Readings of a tree taken while a child was being reaped are read again, up to this many
/// times; a server that ends processes without pause would otherwise never be read.
const TRIES: usize = 100;

/// `pid` and its descendants alive now, `pid` first. Found from every process's parent in
/// /proc/PID/stat: a thread's `children` file can skip a child while another is forked or
/// reaped beside it (the kernel documents it as unreliable then), and a PostgreSQL server
/// starts and ends processes all the time; one skipped backend lost a cell's server CPU.
pub fn descendants(pid: i32) -> Vec<i32> {
    tree(pid).iter().map(|s| s.pid).collect()
}

/// The /proc/PID/stat of `pid` and of its descendants, `pid` first, each read once.
fn tree(pid: i32) -> Vec<Stat> {
    let mut stats: Vec<Stat> = procfs::process::all_processes()
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|p| p.stat().ok())
        .collect();
    let mut all = Vec::new();
    match stats.iter().position(|s| s.pid == pid) {
        Some(i) => all.push(stats.swap_remove(i)),
        None => return all,
    }
    let mut i = 0;
    while i < all.len() {
        let parent = all[i].pid;
        let (children, rest): (Vec<Stat>, Vec<Stat>) =
            stats.into_iter().partition(|s| s.ppid == parent);
        all.extend(children);
        stats = rest;
        i += 1;
    }
    all
}

/// CPU time of the descendants of `pid` that ended and were reaped, microseconds.
fn ended_us(pid: i32) -> Result<u64> {
    let stat = Process::new(pid)
        .and_then(|p| p.stat())
        .with_context(|| format!("reading /proc/{pid}/stat"))?;
    Ok(ticks_us(
        stat.cutime.max(0) as u64 + stat.cstime.max(0) as u64,
    ))
}

fn ticks_us(ticks: u64) -> u64 {
    ticks * 1_000_000 / procfs::ticks_per_second()
}

/// One reading of the whole tree under `pid`. RSS is `pid`'s own: the processes share
/// their buffers, and a sum would count those pages once per process.
///
/// A child reaped between reading the parent's children's times and listing the tree is
/// in neither: the sum drops by all it used, and a cell whose backends exit as it ends
/// measured 0 µs of server CPU. A child being reaped (state X) can be in both. So the tree
/// is read between two readings of those times and read again unless they agree and no
/// child is being reaped.
pub fn sample(pid: i32) -> Result<ProcSample> {
    let mut last = None;
    for _ in 0..TRIES {
        let ended_before = ended_us(pid)?;
        let members = tree(pid);
        let settled = ended_us(pid)? == ended_before && members.iter().all(|s| s.state != 'X');
        last = Some((ended_before, members));
        if settled {
            break;
        }
    }
    let (ended, members) = last.expect("TRIES is above zero");
    let mut total = ProcSample::of(pid)?;
    total.cpu_us += ended;
    for child in members.iter().skip(1) {
        total.cpu_us += ticks_us(child.utime + child.stime);
        // Context switches and storage bytes are read now: a process that ended since
        // the listing is counted by its parent's /proc/PID/io at the next reading.
        if let Ok(s) = ProcSample::of(child.pid) {
            total.voluntary_cs += s.voluntary_cs;
            total.involuntary_cs += s.involuntary_cs;
            total.read_bytes += s.read_bytes;
            total.write_bytes += s.write_bytes;
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// A shell that runs one short CPU-bound child after another, reaping each, is read
    /// without pause: its tree's CPU time never falls. A child lost while it is reaped
    /// makes a reading drop by all the child used (about 0.1 s); counted twice, the next
    /// reading drops by as much.
    #[test]
    fn a_tree_whose_children_end_and_are_reaped_never_loses_their_cpu() {
        let burn = "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done";
        let mut shell = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("while :; do sh -c '{burn}'; done"))
            .spawn()
            .unwrap();
        let pid = shell.id() as i32;
        // Rounding of each process's times to ticks: a few ticks either way.
        let slack = 3 * ticks_us(1);
        let (mut drops, mut readings) = (Vec::new(), 0);
        let mut previous = sample(pid).unwrap().cpu_us;
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(3) {
            let now = sample(pid).unwrap().cpu_us;
            if now + slack < previous {
                drops.push((previous, now));
            }
            previous = now;
            readings += 1;
        }
        shell.kill().unwrap();
        shell.wait().unwrap();
        assert!(previous > 300_000, "the children ran: {previous} µs");
        assert!(drops.is_empty(), "{drops:?} in {readings} readings");
    }
}
