//! Throughput rounds: each variant's turn on a fresh sandbox, its cells measured again when
//! another process took CPU (up to `limits.attempts`), and a server that died during a cell
//! recorded with its error log and started again from a fresh datadir copy.

use super::cell::{self, CellPlan, Target};
use super::context::{cell_seed, record, RunContext};
use super::work::Turn;
use super::{dataset, insert_benchmark, variant};
use crate::probes::device::Device;
use crate::results::study::{Study, WorkloadStep};
use crate::results::{CellKey, CellResult, Flag, Regime, RoundRecord, StudyResults};
use crate::server::{errorlog, Sandbox};
use crate::study::regime;
use crate::workloads::kinds::Runs;
use crate::workloads::Workload;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::time::Duration;

/// The first turn of a round records its host and its variants' order.
pub(super) fn record_round(study: &Study, res: &mut StudyResults, round: u32) {
    if res.sharding.rounds.iter().any(|r| r.round == round) {
        return;
    }
    let order = super::work::order(study, res, round)
        .iter()
        .map(|v| v.name.clone())
        .collect();
    res.sharding.rounds.push(RoundRecord {
        round,
        host: crate::probes::host::name(),
        order,
    });
}

pub fn run_throughput(ctx: &RunContext, turns: &[Turn], res: &mut StudyResults) -> Result<()> {
    let study = ctx.study;
    let workloads = step_workloads(study)?;
    let mut profiling = crate::profile::Session::new(&study.profile, &ctx.req.out_dir);
    let clients = study.most_connections();
    for (k, turn) in turns.iter().enumerate() {
        let (round, v) = (turn.round, turn.variant);
        record_round(study, res, round);
        let launch = launch(ctx, v, clients)?;
        let name = launch.sandbox_name.clone();
        let regime = regime::of(study, v);
        ctx.progress
            .start(&format!("round {} {}: starting", round + 1, v.name));
        let (mut sb, prov) = variant::start(&launch)?;
        record(res, v.name.clone(), prov);
        let device = device_of(&sb, res);
        prepare_regime(ctx, &sb, regime, res)?;
        for &(i, threads) in &turn.cells {
            let (w, workload) = &workloads[&i];
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
                (device.as_ref(), regime),
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
                res.notes
                    .push(restarted_note(round, &v.name, &w.label(), threads));
                drop(sb);
                sb = variant::start(&launch)?.0;
                prepare_regime(ctx, &sb, regime, res)?;
            }
            // Stopped by a signal: the cell is not a failure to keep, but one to run on resume.
            if result.is_err() && crate::server::registry::stopping() {
                anyhow::bail!("stopped by a signal during {what}");
            }
            let cell = result.unwrap_or_else(|e| {
                let msg = format!("{e:#}");
                ctx.progress.note(&format!("{what} failed: {msg}"));
                cell::failed(key, msg)
            });
            if let Some(d) = workload.describe().filter(|d| !res.notes.contains(d)) {
                res.notes.push(d);
            }
            for note in workload.take_notes() {
                let note = format!("round {} variant {}: {note}", round + 1, v.name);
                res.notes.push(note);
            }
            res.cells.push(cell);
            res.save(&ctx.req.out_dir)?;
            ctx.progress.done();
        }
        for w in &turn.in_order {
            let Runs::Sequence(sequence) = study.runs_of(w)? else {
                anyhow::bail!("workload '{}' runs its cells alone", w.label());
            };
            let entry = insert_benchmark::Entry { w, sequence };
            insert_benchmark::run_entry(ctx, &sb, device.as_ref(), round, &v.name, &entry, res)?;
        }
        drop(sb);
        variant::discard(&ctx.req.home, &name);
        if turns.get(k + 1).is_none_or(|next| next.round != round) {
            ctx.round_done(res);
        }
    }
    Ok(())
}

/// The workload of each entry whose cells run alone, by the entry's index in the study.
pub(super) fn step_workloads(study: &Study) -> Result<StepWorkloads<'_>> {
    let mut out = BTreeMap::new();
    for i in study.independent_steps() {
        let w = &study.workloads[i];
        match study.runs_of(w)? {
            Runs::Transactions(workload) => {
                out.insert(i, (w, workload));
            }
            Runs::Sequence(_) => anyhow::bail!("workload '{}' runs its cells in order", w.label()),
        }
    }
    Ok(out)
}

/// Entries whose cells run alone, with their workloads, by index in the study.
pub(super) type StepWorkloads<'a> = BTreeMap<usize, (&'a WorkloadStep, Box<dyn Workload>)>;

/// The study's note on a server that died during a cell and was started again.
pub(super) fn restarted_note(round: u32, variant: &str, step: &str, threads: u32) -> String {
    format!(
        "round {} variant {variant}: the server died during {step} at {threads} threads and was restarted from a fresh datadir copy",
        round + 1
    )
}

/// How a variant's sandbox of this study run starts (and starts again after a death).
pub(super) fn launch<'a>(
    ctx: &'a RunContext,
    v: &'a crate::results::study::Variant,
    clients: u32,
) -> Result<variant::Launch<'a>> {
    let data = &ctx.datadirs[&v.basedir];
    let mut extra_options = variant::connection_options(v, clients)?;
    extra_options.extend(regime::launch_options(ctx.study, v, data.bytes));
    Ok(variant::Launch {
        database: dataset::DATABASE,
        variant: v,
        home: &ctx.req.home,
        sandbox_name: variant::sandbox_name(ctx.prefix, &v.name),
        datadir: &data.dir,
        extra_options,
        wrapper: Vec::new(),
        ready_timeout: Duration::from_secs(120),
        cpus: super::placement::server_cpus(ctx.study),
    })
}

/// The block device holding the sandbox's datadir; when there is none (tmpfs, overlay), the
/// study says so once and its cells go without device IO.
pub(super) fn device_of(sb: &Sandbox, res: &mut StudyResults) -> Option<Device> {
    match Device::holding(&sb.state().datadir) {
        Ok(d) => Some(d),
        Err(e) => {
            let note = format!("no device IO figures: {e:#}");
            if !res.notes.contains(&note) {
                res.notes.push(note);
            }
            None
        }
    }
}

/// A cached variant reads all its data into the buffer pool before its cells; the seconds
/// it took are added to its dataset's record.
pub(super) fn prepare_regime(
    ctx: &RunContext,
    sb: &Sandbox,
    regime: Option<Regime>,
    res: &mut StudyResults,
) -> Result<()> {
    if regime != Some(Regime::Cached) {
        return Ok(());
    }
    ctx.progress
        .start(&format!("{}: warming the buffer pool", sb.name()));
    let mut conn = sb.admin_endpoint().connect()?;
    let seconds = super::regime::warm(&mut conn, dataset::DATABASE)?;
    let server = crate::engines::label(sb.binaries());
    if let Some(r) = res.datasets.iter_mut().find(|r| r.server == server) {
        r.warm_s += seconds;
    }
    Ok(())
}

/// The tail of a dead server's error log, for a failed cell.
pub(super) fn death_note(sb: &Sandbox) -> String {
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
    (device, regime): (Option<&Device>, Option<Regime>),
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
        device,
        regime,
        idle_servers: &[],
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
        // A workload that ends by itself has changed its data: it is not measured again.
        if !contaminated || attempts >= study.limits.attempts.max(1) || workload.ends_by_itself() {
            return Ok(c);
        }
    }
}
