//! A profiling target for the workloads' hot path (one connection, no driver), not a check:
//! `cargo run --release --example hot_loop` under `perf record`. The client's cost against
//! sysbench's is measured side by side by bench/client_cpu.py.

use psbench::server::{Home, SandboxSpec};
use psbench::workloads::sysbench::{OltpOptions, PsMode};
use psbench::workloads::{sysbench_workload, QueryCounters};
use std::os::unix::fs::PermissionsExt;

fn rusage(who: libc::c_int) -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(who, &mut ru) }, 0);
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(ru.ru_utime) + s(ru.ru_stime)
}

/// A long single-connection loop of one workload, to profile (`perf record`) the hot path:
/// PSW_WORKLOAD (oltp_point_select), PSW_EVENTS (200000), PSW_PS_MODE (auto|disable).
fn main() {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let name = env("PSW_WORKLOAD", "oltp_point_select");
    let events: u64 = env("PSW_EVENTS", "200000").parse().unwrap();
    let ps = if env("PSW_PS_MODE", "auto") == "auto" {
        PsMode::Auto
    } else {
        PsMode::Disable
    };
    // Mode 0711: run as root, the server's own account must pass through it.
    let dir = tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(0o711))
        .prefix("psp")
        .tempdir_in("/tmp")
        .unwrap();
    let sb = psbench::engines::start(SandboxSpec::new("hot", Home::new(dir.path()))).unwrap();
    let ep = sb.tcp_endpoint().with_database(Some("sbtest"));
    let opts = OltpOptions {
        db_ps_mode: ps,
        ..OltpOptions::default()
    };
    let workload = sysbench_workload(&name, &opts).unwrap();
    workload.prepare(&ep, 1, 1).unwrap();
    let mut conn = ep.session().unwrap();
    let mut worker = workload.worker(0, 1, 7, &mut conn).unwrap();
    let mut counters = QueryCounters::default();
    let t0 = rusage(libc::RUSAGE_THREAD);
    for _ in 0..events {
        worker
            .event(&mut conn, &mut counters)
            .map_err(|e| format!("{e:?}"))
            .unwrap();
    }
    let cpu = rusage(libc::RUSAGE_THREAD) - t0;
    println!(
        "{name}: {:.2} µs client CPU per query",
        cpu / counters.total() as f64 * 1e6
    );
}
