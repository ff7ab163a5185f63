//! Client CPU per query of the workloads' hot path against sysbench 1.0.20's, on one
//! sandbox, single connection over TCP, alternating A B A B. A measurement, not a check:
//! `cargo test --release --test workloads_perf -- --ignored --nocapture`.

mod common;

use psbench::server::{Home, Sandbox, SandboxSpec};
use psbench::workloads::sysbench::{OltpOptions, PsMode};
use psbench::workloads::{sysbench_workload, QueryCounters};
use std::process::Command;

fn rusage(who: libc::c_int) -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(who, &mut ru) }, 0);
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(ru.ru_utime) + s(ru.ru_stime)
}

/// CPU seconds of sysbench running `events` events (children's rusage delta).
fn sysbench_cpu(port: u16, password: &str, name: &str, events: u64, extra: &[&str]) -> f64 {
    let before = rusage(libc::RUSAGE_CHILDREN);
    let out = Command::new("sysbench")
        .arg(name)
        .args([
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            &format!("--mysql-port={port}"),
            "--mysql-user=root",
            &format!("--mysql-password={password}"),
            "--mysql-db=sbtest",
            "--rand-type=uniform",
            &format!("--events={events}"),
            "--time=0",
        ])
        .args(extra)
        .arg("run")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    rusage(libc::RUSAGE_CHILDREN) - before
}

#[test]
#[ignore = "a measurement: run with --release -- --ignored --nocapture"]
fn client_cpu_per_query_vs_sysbench() {
    let dir = common::tempdir_builder()
        .prefix("psp")
        .tempdir_in("/tmp")
        .unwrap();
    let sb = Sandbox::start(SandboxSpec::new("perf", Home::new(dir.path()))).unwrap();
    let ep = sb.tcp_endpoint().with_database(Some("sbtest"));
    let base = OltpOptions::default();
    sysbench_workload("oltp_read_only", &base)
        .unwrap()
        .prepare(&ep, 1, 1)
        .unwrap();
    for (name, ps, events, queries_per_event) in [
        ("oltp_point_select", PsMode::Auto, 40_000u64, 1u64),
        ("oltp_point_select", PsMode::Disable, 40_000, 1),
        ("oltp_read_only", PsMode::Auto, 2_000, 16),
    ] {
        let opts = OltpOptions {
            db_ps_mode: ps,
            ..base.clone()
        };
        let ps_flag = format!(
            "--db-ps-mode={}",
            if ps == PsMode::Auto {
                "auto"
            } else {
                "disable"
            }
        );
        // sysbench's start-up (LuaJIT, connect) measured with one event and taken off.
        let startup = sysbench_cpu(sb.port(), sb.password(), name, 1, &[&ps_flag]);
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for round in 0..3 {
            let workload = sysbench_workload(name, &opts).unwrap();
            let mut conn = ep.connect().unwrap();
            let mut worker = workload.worker(0, 1, round, &mut conn).unwrap();
            let mut counters = QueryCounters::default();
            let t0 = rusage(libc::RUSAGE_THREAD);
            for _ in 0..events {
                worker
                    .event(&mut conn, &mut counters)
                    .map_err(|e| format!("{e:?}"))
                    .unwrap();
            }
            let cpu = rusage(libc::RUSAGE_THREAD) - t0;
            assert_eq!(counters.total(), events * queries_per_event);
            ours.push(cpu / counters.total() as f64 * 1e6);
            let cpu = sysbench_cpu(sb.port(), sb.password(), name, events, &[&ps_flag]) - startup;
            theirs.push(cpu / (events * queries_per_event) as f64 * 1e6);
        }
        ours.sort_by(f64::total_cmp);
        theirs.sort_by(f64::total_cmp);
        println!(
            "{name} {ps_flag}: client CPU µs/query psbench {:.2} (runs {ours:.2?}), sysbench {:.2} (runs {theirs:.2?}), ratio {:.2}",
            ours[1],
            theirs[1],
            ours[1] / theirs[1]
        );
    }
}

/// A long single-connection loop of one workload, to profile (`perf record`) the hot path:
/// PSW_WORKLOAD (oltp_point_select), PSW_EVENTS (200000), PSW_PS_MODE (auto|disable).
#[test]
#[ignore = "a profiling target: run with --release -- --ignored hot_loop"]
fn hot_loop() {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let name = env("PSW_WORKLOAD", "oltp_point_select");
    let events: u64 = env("PSW_EVENTS", "200000").parse().unwrap();
    let ps = if env("PSW_PS_MODE", "auto") == "auto" {
        PsMode::Auto
    } else {
        PsMode::Disable
    };
    let dir = common::tempdir_builder()
        .prefix("psp")
        .tempdir_in("/tmp")
        .unwrap();
    let sb = Sandbox::start(SandboxSpec::new("hot", Home::new(dir.path()))).unwrap();
    let ep = sb.tcp_endpoint().with_database(Some("sbtest"));
    let opts = OltpOptions {
        db_ps_mode: ps,
        ..OltpOptions::default()
    };
    let workload = sysbench_workload(&name, &opts).unwrap();
    workload.prepare(&ep, 1, 1).unwrap();
    let mut conn = ep.connect().unwrap();
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
