//! How long this host takes to wake a blocked thread: two threads pass one byte back and
//! forth over a unix socket pair, each blocked in read until the other writes, as a blocking
//! client and its server do for every statement. Timed once with the threads on two CPUs
//! (each wake-up crosses CPUs, as the client's and server's threads usually do) and once with
//! both on one CPU. On a virtual machine a cross-CPU wake-up can cost tens of microseconds.

use crate::results::{CpuList, Wakeup};
use anyhow::{anyhow, Context, Result};
use nix::sched::sched_setaffinity;
use nix::unistd::Pid;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// Round trips per median, after `WARMUP` untimed ones.
pub const ROUND_TRIPS: u32 = 2_000;
const WARMUP: u32 = 100;
/// Each of the two timings stops here even when its round trips are not done, so that the
/// probe stays short on a loaded host.
pub const TIME_LIMIT: Duration = Duration::from_millis(400);

/// Both timings on the first two CPUs of `allowed` (one CPU: the same-CPU timing only).
pub fn measure(allowed: &CpuList) -> Result<Wakeup> {
    let cpus = allowed.cpus();
    let first = *cpus.first().context("no CPU allowed")?;
    let same = round_trips(first, first, ROUND_TRIPS, TIME_LIMIT)?;
    let cross = match cpus.get(1) {
        Some(&second) => Some((second, round_trips(first, second, ROUND_TRIPS, TIME_LIMIT)?)),
        None => None,
    };
    let measured = cross
        .as_ref()
        .map_or(same.len(), |c| c.1.len().min(same.len()));
    Ok(Wakeup {
        cross_cpu_us: cross.as_ref().map(|c| median(&c.1)),
        cross_cpus: cross.map(|c| [first, c.0]),
        same_cpu_us: median(&same),
        same_cpu: first,
        round_trips: measured as u32,
    })
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

fn pin(cpu: usize) -> Result<()> {
    sched_setaffinity(Pid::from_raw(0), &CpuList::of(vec![cpu]).to_set())
        .with_context(|| format!("placing a probe thread on CPU {cpu}"))
}

/// Each round trip in µs: the pinger on `a` writes a byte and blocks until the ponger on `b`
/// sends it back. Stops after `n` or at `limit`.
fn round_trips(a: usize, b: usize, n: u32, limit: Duration) -> Result<Vec<f64>> {
    let (mut ping, mut pong) = UnixStream::pair().context("creating a socket pair")?;
    std::thread::scope(|scope| {
        let ponger = scope.spawn(move || -> Result<()> {
            pin(b)?;
            let mut byte = [0u8; 1];
            // The pinger closing its end (read returns 0) ends the ponger.
            while pong.read(&mut byte)? == 1 {
                pong.write_all(&byte)?;
            }
            Ok(())
        });
        let pinger = scope.spawn(move || -> Result<Vec<f64>> {
            pin(a)?;
            let mut byte = [1u8; 1];
            let mut times = Vec::with_capacity(n as usize);
            let start = Instant::now();
            for i in 0..WARMUP + n {
                let t = Instant::now();
                ping.write_all(&byte)?;
                ping.read_exact(&mut byte)?;
                if i >= WARMUP {
                    times.push(t.elapsed().as_secs_f64() * 1e6);
                }
                if start.elapsed() > limit {
                    break;
                }
            }
            Ok(times)
        });
        let times = pinger
            .join()
            .map_err(|_| anyhow!("the wake-up probe's thread panicked"))?;
        let ended = ponger
            .join()
            .map_err(|_| anyhow!("the wake-up probe's thread panicked"))?;
        let times = times?;
        ended?;
        if times.is_empty() {
            anyhow::bail!("no round trip within {limit:?}");
        }
        Ok(times)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trips_on_the_allowed_cpus() {
        let allowed = crate::probes::cpus::allowed();
        let w = measure(allowed).unwrap();
        assert!(w.same_cpu_us > 0.0 && w.round_trips > 0, "{w:?}");
        assert_eq!(w.same_cpu, allowed.cpus()[0]);
        assert_eq!(w.cross_cpu_us.is_some(), allowed.len() > 1, "{w:?}");
        // One CPU: the probe places its own threads, never the caller.
        let one = CpuList::of(vec![allowed.cpus()[0]]);
        let w = measure(&one).unwrap();
        assert!(w.cross_cpu_us.is_none() && w.cross_cpus.is_none());
        assert_eq!(&crate::probes::cpus::this_thread().unwrap(), allowed);
    }
}
