//! One throughput cell: a warm-up, then a measured run of the driver with probes around it,
//! turned into a [`CellResult`] with per-transaction resources and validity flags.

use crate::connection::Endpoint;
use crate::driver::{self, RunOptions, RunReport, Unwatched};
use crate::probes::device::{Device, DeviceSeries};
use crate::probes::{
    process_tree, status, AdminConn, MachineSample, PfsState, ProcSample, StatusSnapshot,
};
use crate::results::insert_benchmark::StepResult;
use crate::results::study::Limits;
use crate::results::{CellKey, CellResult, ClassResult, Flag, Regime, Resources};
use crate::stats::steady::steady_state;
use crate::workloads::Workload;
use anyhow::Result;
use std::collections::BTreeMap;

/// What a cell needs to know about its server.
pub struct Target<'a> {
    pub endpoint: &'a Endpoint,
    /// root, for status and PFS reads outside the measured connections.
    pub admin: &'a Endpoint,
    pub server_pid: i32,
    /// The block device holding the datadir, when it is on one.
    pub device: Option<&'a Device>,
    /// The regime the cell must be in, checked from the server's counters.
    pub regime: Option<Regime>,
    /// The other variants' live servers of an alternating cell: their CPU is theirs, not
    /// another process's.
    pub idle_servers: &'a [i32],
}

pub struct CellPlan<'a> {
    pub key: CellKey,
    pub workload: &'a dyn Workload,
    pub warmup_s: f64,
    pub duration_s: f64,
    pub seed: u64,
    pub limits: &'a Limits,
    /// Sample the server during the measured window.
    pub profile: Option<&'a crate::profile::CellSampler>,
}

pub(super) fn driver_run(
    plan: &CellPlan,
    target: &Target,
    time: f64,
    events: i64,
) -> Result<RunReport> {
    let opts = RunOptions {
        threads: plan.key.threads as i64,
        time,
        events,
        rand_seed: plan.seed,
        percentiles: vec![95.0],
        ..RunOptions::default()
    };
    driver::measure(
        plan.workload,
        target.endpoint,
        &opts,
        plan.seed,
        &mut Unwatched,
    )
}

/// What a measured window produced, for the probes around it to divide by.
pub struct Measured {
    pub report: RunReport,
    /// Transactions; for an Insert Benchmark step its operations (rows inserted, or queries).
    pub ops: u64,
    /// Operations per second: the cell's headline figure.
    pub throughput: f64,
    pub insert_benchmark: Option<StepResult>,
}

/// Run one cell once.
pub fn measure(plan: &CellPlan, target: &Target) -> Result<CellResult> {
    // A workload that ends by itself (a replay) runs whole, once: no warm-up, no time limit.
    let whole = plan.workload.ends_by_itself();
    if plan.warmup_s > 0.0 && !whole {
        driver_run(plan, target, plan.warmup_s, 0)?;
    }
    // The warm-up's statements are not the cell's.
    plan.workload.take_statement_latencies();
    let mut cell = probed(&plan.key, plan.limits, plan.profile, target, || {
        let time = if whole { 0.0 } else { plan.duration_s };
        let report = driver_run(plan, target, time, 0)?;
        let ops = report.totals.events;
        Ok(Measured {
            throughput: ops as f64 / report.total_time_s.max(1e-9),
            ops,
            report,
            insert_benchmark: None,
        })
    })?;
    add_statements(&mut cell, plan.workload.take_statement_latencies());
    cell.unit = plan.workload.unit().map(str::to_string);
    Ok(cell)
}

/// Each class's statement latencies into the cell (a one-class step gets its class entry).
fn add_statements(cell: &mut CellResult, per_class: Vec<Vec<(usize, String, f64)>>) {
    if per_class.iter().all(Vec::is_empty) {
        return;
    }
    if cell.classes.is_empty() {
        cell.classes.push(ClassResult {
            name: cell.key.step.clone(),
            transactions: cell.transactions,
            tps: cell.tps,
            latency_ms: cell.latency_ms.clone(),
            errors: cell.errors,
            statements: Vec::new(),
        });
    }
    for (class, statements) in cell.classes.iter_mut().zip(per_class) {
        class.statements = statements
            .into_iter()
            .map(
                |(line, command, mean_ms)| crate::results::StatementLatency {
                    line,
                    command,
                    mean_ms,
                },
            )
            .collect();
    }
}

/// Measure `window` with the server, client and machine probes around it, and judge it.
pub fn probed(
    key: &CellKey,
    limits: &Limits,
    profile: Option<&crate::profile::CellSampler>,
    target: &Target,
    window: impl FnOnce() -> Result<Measured>,
) -> Result<CellResult> {
    let mut admin = AdminConn::open(target.admin)?;
    let status_before = StatusSnapshot::read(&mut admin)?;
    let machine_before = MachineSample::now()?;
    // The server's whole process tree: PostgreSQL works in one process per connection.
    let server_before = process_tree::sample(target.server_pid)?;
    let client_before = ProcSample::of_self()?;
    let idle_before = idle_cpu_us(target.idle_servers);

    let sampling = match profile {
        Some(p) => Some(p.start(target.server_pid)?),
        None => None,
    };
    let device_series = target.device.map(DeviceSeries::start).transpose()?;
    let measured = window()?;
    let report = &measured.report;
    let sampled = sampling.map(|s| s.stop()).transpose()?;
    let (device, per_second_device) = match device_series.map(|d| d.stop()).transpose()? {
        Some((whole, seconds)) => (Some(whole), seconds),
        None => (None, Vec::new()),
    };

    let client = ProcSample::of_self()?.since(&client_before);
    let server = process_tree::sample(target.server_pid)?.since(&server_before);
    let machine = MachineSample::now()?.since(&machine_before);
    let idle_us = idle_cpu_us(target.idle_servers).saturating_sub(idle_before) as f64;
    let status_delta = StatusSnapshot::read(&mut admin)?.delta(&status_before);
    let pfs = PfsState::read_any(&mut admin)?;

    let t = &report.totals;
    let txns = measured.ops;
    // perf, when profiling, is ours: not another process stealing CPU.
    let perf_us = sampled.as_ref().map_or(0, |s| s.perf_cpu_us()) as f64;
    let profile = sampled.map(|s| s.store(txns)).transpose()?;
    let per = |x: f64| if txns > 0 { x / txns as f64 } else { 0.0 };
    let wall = report.total_time_s.max(1e-9);
    let foreign_us =
        machine.busy_us as f64 - server.cpu_us as f64 - client.cpu_us as f64 - perf_us - idle_us;
    // The headline class: an Insert Benchmark query step's queries, else every statement.
    let lat = match &measured.insert_benchmark {
        Some(ib) if ib.counts_queries() => {
            t.classes[crate::workloads::ibench::QUERY].latency.clone()
        }
        _ => t.latency(),
    };
    let latency_ms = latency_table(&lat);
    let classes = if report.class_names.len() > 1 && measured.insert_benchmark.is_none() {
        report
            .class_names
            .iter()
            .zip(&t.classes)
            .map(|(name, c)| ClassResult {
                name: name.clone(),
                transactions: c.latency.count(),
                tps: c.latency.count() as f64 / wall,
                latency_ms: latency_table(&c.latency),
                errors: c.errors,
                statements: Vec::new(),
            })
            .collect()
    } else {
        Vec::new()
    };
    // The step's own operations per second: an Insert Benchmark step's queries or inserted
    // rows (the writers' statements and the other classes would blur a trend), else
    // transactions.
    let per_second_tps = rates(report.seconds.iter().map(|s| {
        let ops = match &measured.insert_benchmark {
            Some(ib) if ib.counts_queries() => {
                s.classes[crate::workloads::ibench::QUERY].transactions
            }
            Some(ib) => {
                s.classes[crate::workloads::ibench::INSERT].transactions * ib.rows_per_statement
            }
            None => s.transactions,
        };
        (ops as f64, s.duration)
    }));
    let resources = Resources {
        server_cpu_us_per_txn: per(server.cpu_us as f64),
        client_cpu_us_per_txn: per(report.cpu.total_s() * 1e6),
        foreign_cpu_s: foreign_us.max(0.0) / 1e6,
        server_cpu_util: server.cpu_us as f64 / 1e6 / wall,
        client_cpu_util: report.cpu.total_s() / wall,
        server_cs_per_txn: per(server.context_switches() as f64),
        client_cs_per_txn: per(client.context_switches() as f64),
        read_kb_per_txn: per(server.read_bytes as f64 / 1024.0),
        write_kb_per_txn: per(server.write_bytes as f64 / 1024.0),
        server_rss_mb: server.rss_bytes as f64 / 1048576.0,
        pfs_memory_mb: pfs.memory_bytes as f64 / 1048576.0,
        status_per_txn: status::per_transaction(&status_delta, txns),
        device,
        idle_servers_cpu_util: (!target.idle_servers.is_empty()).then(|| idle_us / 1e6 / wall),
    };
    let regime = target
        .regime
        .map(|asked| super::regime::check_cell(asked, &status_delta));
    let mut flags = Vec::new();
    if resources.client_cpu_util > limits.client_bound_core_share {
        flags.push(Flag::ClientBound);
    }
    if resources.foreign_cpu_s / wall > limits.foreign_cpu_core_share {
        flags.push(Flag::Contaminated);
    }
    if machine.saturated() {
        flags.push(Flag::HostSaturated);
    }
    if per(t.errors as f64) > limits.error_rate {
        flags.push(Flag::Errors);
    }
    let steady = steady_state(&per_second_tps, limits.trend);
    if steady.is_some_and(|s| !s.settled) {
        flags.push(Flag::NotSteady);
    }
    flags.extend(regime.and_then(super::regime::flag));
    if measured
        .insert_benchmark
        .as_ref()
        .and_then(|ib| ib.background.as_ref())
        .is_some_and(|b| b.below_target)
    {
        flags.push(Flag::RateNotSustained);
    }
    Ok(CellResult {
        key: key.clone(),
        ok: true,
        error: None,
        attempts: 1,
        duration_s: report.total_time_s,
        transactions: txns,
        queries: t.queries.total(),
        tps: measured.throughput,
        qps: t.queries.total() as f64 / wall,
        errors: t.errors,
        reconnects: t.reconnects,
        latency_ms,
        per_second_tps,
        per_second_device,
        steady_from_s: steady.map(|s| s.from as u32),
        regime,
        resources,
        flags,
        profile,
        insert_benchmark: measured.insert_benchmark,
        unit: None,
        slices: Vec::new(),
        classes,
    })
}

/// A latency's percentiles, max and mean (ms), as a cell records them.
fn latency_table(lat: &crate::driver::Latencies) -> BTreeMap<String, f64> {
    let mut latency_ms = BTreeMap::new();
    for (k, p) in [("p50", 50.0), ("p95", 95.0), ("p99", 99.0), ("p99.9", 99.9)] {
        latency_ms.insert(k.to_string(), lat.percentile_ms(p));
    }
    latency_ms.insert("max".into(), lat.max_ms());
    latency_ms.insert("avg".into(), lat.avg_ms());
    latency_ms
}

/// A cell that could not be measured, with why.
pub fn failed(key: CellKey, error: String) -> CellResult {
    CellResult {
        key,
        ok: false,
        error: Some(error),
        attempts: 1,
        duration_s: 0.0,
        transactions: 0,
        queries: 0,
        tps: 0.0,
        qps: 0.0,
        errors: 0,
        reconnects: 0,
        latency_ms: BTreeMap::new(),
        per_second_tps: Vec::new(),
        per_second_device: Vec::new(),
        steady_from_s: None,
        regime: None,
        resources: Resources::default(),
        flags: Vec::new(),
        profile: None,
        insert_benchmark: None,
        unit: None,
        slices: Vec::new(),
        classes: Vec::new(),
    }
}

/// CPU microseconds used so far by the process trees of `pids` (servers that may have
/// exited count nothing).
fn idle_cpu_us(pids: &[i32]) -> u64 {
    pids.iter()
        .map(|&pid| process_tree::sample(pid).map_or(0, |s| s.cpu_us))
        .sum()
}

/// Shorter intervals give no rate: a window's last, partial interval can last half a
/// millisecond, and one query in it reads as 2,000/s.
const MIN_INTERVAL_S: f64 = 0.5;

/// Operations per second of each interval long enough to give one, from (operations,
/// seconds).
fn rates(intervals: impl Iterator<Item = (f64, f64)>) -> Vec<f64> {
    intervals
        .filter(|(_, secs)| *secs >= MIN_INTERVAL_S)
        .map(|(ops, secs)| ops / secs)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_last_interval_gives_no_rate() {
        // A 10 s query step as measured: ten whole seconds near 10,000/s, then one query
        // in the half millisecond before the threads stopped, which read as 1,838/s in the
        // series, its chart and its medians.
        let whole = [
            10526., 9898., 9854., 9906., 10983., 10697., 10170., 11124., 10277., 10881.,
        ];
        let intervals = whole.iter().map(|&n| (n, 1.0)).chain([(1.0, 0.000_544)]);
        let kept = rates(intervals);
        assert_eq!(kept, whole.to_vec());
        assert!(steady_state(&kept, 0.15).expect("10 s are judged").settled);
        // A load step's last interval of 0.6 s is a rate: kept.
        assert_eq!(
            rates([(1000.0, 1.0), (600.0, 0.6)].into_iter()),
            vec![1000.0; 2]
        );
    }
}
