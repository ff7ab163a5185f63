//! Throughput rounds: each variant's turn on a fresh sandbox, its cells measured again when
//! another process took CPU (up to `limits.attempts`), and a server that died during a cell
//! recorded with its error log and started again from a fresh datadir copy.

use super::cell::{self, CellPlan, Target};
use super::context::{cell_seed, record, RunContext};
use super::file::Study;
use super::work::Turn;
use super::{dataset, insert_benchmark, variant};
use crate::results::{CellKey, CellResult, Flag, StudyResults};
use crate::server::{errorlog, Sandbox};
use crate::workloads::sysbench::sysbench_workload;
use crate::workloads::Workload;
use anyhow::{Context, Result};
use std::time::Duration;

pub fn run_throughput(ctx: &RunContext, turns: &[Turn], res: &mut StudyResults) -> Result<()> {
    let study = ctx.study;
    let workloads: Vec<_> = study
        .sysbench_steps()
        .into_iter()
        .map(|w| {
            Ok((
                w,
                sysbench_workload(&w.workload, &study.workload_options(w)?)?,
            ))
        })
        .collect::<Result<_>>()?;
    let mut profiling = crate::profile::Session::new(&study.profile, &ctx.req.out_dir);
    let clients = most_connections(study);
    for turn in turns {
        let (round, v) = (turn.round, turn.variant);
        let name = variant::sandbox_name(ctx.prefix, &v.name);
        let launch = variant::Launch {
            variant: v,
            home: &ctx.req.home,
            sandbox_name: name.clone(),
            datadir: &ctx.datadirs[&v.basedir],
            extra_options: variant::connection_options(v, clients)?,
            wrapper: Vec::new(),
            ready_timeout: Duration::from_secs(120),
        };
        ctx.progress
            .start(&format!("round {} {}: starting", round + 1, v.name));
        let (mut sb, prov) = variant::start(&launch)?;
        record(res, v.name.clone(), prov);
        for &(i, threads) in &turn.cells {
            let (w, workload) = &workloads[i];
            let key = CellKey {
                round,
                variant: v.name.clone(),
                step: w.label(),
                threads,
            };
            let what = format!("{} {} {} thr", v.name, w.label(), threads);
            ctx.progress.start(&format!("round {} {what}", round + 1));
            let sampler = match (profiling.as_mut(), sb.pid()) {
                (Some(p), Some(pid)) => {
                    p.for_cell(&key, pid, &sb.binaries().server, &mut res.notes)
                }
                _ => None,
            };
            let mut result = with_attempts(
                study,
                &sb,
                key.clone(),
                workload.as_ref(),
                res.seed,
                sampler.as_ref(),
            );
            if !sb.is_running() {
                let note = death_note(&sb);
                let msg = match &result {
                    Ok(_) => note.clone(),
                    Err(e) => format!("{e:#}; {note}"),
                };
                result = Ok(cell::failed(key.clone(), msg.clone()));
                ctx.progress.note(&format!("{what} failed: {msg}"));
                res.notes.push(format!(
                    "round {} variant {}: the server died during {} at {} threads and was restarted from a fresh datadir copy",
                    round + 1,
                    v.name,
                    w.label(),
                    threads
                ));
                drop(sb);
                sb = variant::start(&launch)?.0;
            }
            let cell = result.unwrap_or_else(|e| {
                let msg = format!("{e:#}");
                ctx.progress.note(&format!("{what} failed: {msg}"));
                cell::failed(key, msg)
            });
            res.cells.push(cell);
            res.save(&ctx.req.out_dir)?;
            ctx.progress.done();
        }
        for w in &turn.insert_benchmark {
            insert_benchmark::run_entry(ctx, &sb, round, &v.name, w, res)?;
        }
        drop(sb);
        variant::discard(&ctx.req.home, &name);
    }
    Ok(())
}

/// The most client connections a cell of the study opens: its largest thread count, and for
/// an Insert Benchmark entry its query steps' inserter, deleter and querier per client.
fn most_connections(study: &Study) -> u32 {
    let sysbench = study
        .sysbench_steps()
        .into_iter()
        .flat_map(|w| study.threads_for(w))
        .max()
        .unwrap_or(1);
    let ibench = study
        .workloads
        .iter()
        .filter(|w| w.is_insert_benchmark())
        .filter_map(|w| study.ibench_options(w).ok())
        .map(|o| 3 * o.clients)
        .max()
        .unwrap_or(0);
    sysbench.max(ibench)
}

/// The tail of a dead server's error log, for a failed cell.
fn death_note(sb: &Sandbox) -> String {
    let log = errorlog::since(sb.error_log(), 0);
    format!(
        "server died; last lines of its error log:\n{}",
        errorlog::tail(&log, 8)
    )
}

/// A contaminated cell (another process took CPU) is measured again, up to the limit.
fn with_attempts(
    study: &Study,
    sb: &Sandbox,
    key: CellKey,
    workload: &dyn Workload,
    base_seed: u64,
    profile: Option<&crate::profile::CellSampler>,
) -> Result<CellResult> {
    let endpoint = sb.tcp_endpoint().with_database(Some(dataset::DATABASE));
    let admin = sb.admin_endpoint();
    let target = Target {
        endpoint: &endpoint,
        admin: &admin,
        server_pid: sb.pid().context("server not running")?,
    };
    let plan = CellPlan {
        seed: cell_seed(base_seed, key.round, &key.step, key.threads),
        key,
        workload,
        warmup_s: study.warmup,
        duration_s: study.duration,
        limits: &study.limits,
        profile,
    };
    let mut attempts = 0;
    loop {
        attempts += 1;
        let mut c = cell::measure(&plan, &target)?;
        c.attempts = attempts;
        let contaminated = c.flags.contains(&Flag::Contaminated);
        if !contaminated || attempts >= study.limits.attempts.max(1) {
            return Ok(c);
        }
    }
}
