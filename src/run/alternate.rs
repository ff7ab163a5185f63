//! Alternating throughput rounds: every variant's server up at once, and each cell's measured
//! time cut into slices that alternate between them (A B B A …, or A B C C B A … for more),
//! so that drift within the cell hits every variant alike. A round still starts every server
//! anew, so the interval over rounds covers the difference between two instances of one
//! binary as well (docs/statistics.md#alternating-slices).

use super::cell::{self, CellPlan, Target};
use super::context::{cell_seed, record, RunContext};
use super::slices::{combine, Slice};
use super::throughput::{
    death_note, device_of, launch, prepare_regime, record_round, restarted_note, step_workloads,
};
use super::work::order;
use super::{dataset, variant};
use crate::driver::Latencies;
use crate::probes::device::Device;
use crate::results::study::{Study, Variant};
use crate::results::{CellKey, CellResult, Flag, Regime, StudyResults};
use crate::server::Sandbox;
use crate::study::measures::{missing, my_rounds};
use crate::study::regime;
use crate::workloads::Workload;
use anyhow::{Context, Result};

/// One variant's live server in an alternating round.
struct Live<'a> {
    variant: &'a Variant,
    launch: variant::Launch<'a>,
    sandbox: Sandbox,
    device: Option<Device>,
    regime: Option<Regime>,
}

impl Live<'_> {
    fn restart(&mut self, ctx: &RunContext, res: &mut StudyResults) -> Result<()> {
        self.sandbox = variant::start(&self.launch)?.0;
        prepare_regime(ctx, &self.sandbox, self.regime, res)
    }
}

/// The order of a cell's slices: `n` blocks over the variants, every other block reversed,
/// as indexes into `count` variants.
pub fn sequence(count: usize, n: usize) -> Vec<usize> {
    (0..n)
        .flat_map(|block| {
            let forward: Vec<usize> = (0..count).collect();
            if block % 2 == 0 {
                forward
            } else {
                forward.into_iter().rev().collect()
            }
        })
        .collect()
}

/// How many slices of how long each variant gets: the measured time cut into slices of at
/// most the study's slice length.
pub fn slicing(duration_s: f64, slice_s: f64) -> (usize, f64) {
    let n = (duration_s / slice_s - 1e-9).ceil().max(1.0) as usize;
    (n, duration_s / n as f64)
}

pub fn run_alternating(ctx: &RunContext, res: &mut StudyResults) -> Result<()> {
    let study = ctx.study;
    let workloads = step_workloads(study)?;
    let slots: Vec<(usize, u32)> = workloads
        .iter()
        .filter(|(_, (w, _))| study.throughput_selects(&w.label()))
        .flat_map(|(&i, (w, _))| study.cells_of(w).into_iter().map(move |(_, t)| (i, t)))
        .collect();
    let clients = study.most_connections();
    for (round, _) in my_rounds(study, res) {
        let variants = order(study, res, round);
        let todo = |res: &StudyResults, v: &Variant, (i, t): (usize, u32)| {
            missing(res, round, v, workloads[&i].0.label(), t)
        };
        if !variants
            .iter()
            .any(|v| slots.iter().any(|s| todo(res, v, *s)))
        {
            continue;
        }
        record_round(study, res, round);
        let mut live = Vec::new();
        for v in &variants {
            ctx.progress
                .start(&format!("round {} {}: starting", round + 1, v.name));
            let launch = launch(ctx, v, clients)?;
            let (sandbox, prov) = variant::start(&launch)?;
            record(res, v.name.clone(), prov);
            let device = device_of(&sandbox, res);
            let regime = regime::of(study, v);
            prepare_regime(ctx, &sandbox, regime, res)?;
            live.push(Live {
                variant: v,
                launch,
                sandbox,
                device,
                regime,
            });
        }
        for &(i, threads) in &slots {
            let (w, workload) = &workloads[&i];
            let who: Vec<usize> = (0..live.len())
                .filter(|&k| todo(res, live[k].variant, (i, threads)))
                .collect();
            if who.is_empty() {
                continue;
            }
            let slot = Slot {
                round,
                step: w.label(),
                threads,
                workload: workload.as_ref(),
            };
            let cells = run_slot(ctx, &mut live, &who, &slot, res)?;
            for c in cells {
                res.cells.push(c);
                ctx.progress.done();
            }
            res.save(&ctx.req.out_dir)?;
        }
        for l in live {
            let name = l.launch.sandbox_name.clone();
            drop(l.sandbox);
            variant::discard(&ctx.req.home, &name);
        }
        ctx.round_done(res);
    }
    Ok(())
}

/// One (round, step, threads) of an alternating study.
struct Slot<'a> {
    round: u32,
    step: String,
    threads: u32,
    workload: &'a dyn Workload,
}

impl Slot<'_> {
    fn key(&self, variant: &str) -> CellKey {
        CellKey {
            round: self.round,
            variant: variant.to_string(),
            step: self.step.clone(),
            threads: self.threads,
        }
    }
}

/// What one variant's slices of a slot gathered so far.
#[derive(Default)]
struct Gathered {
    slices: Vec<Slice>,
    latency: Latencies,
    failure: Option<String>,
}

/// Warm every server of the slot, then run its slices in alternating order; one combined
/// cell per variant.
fn run_slot(
    ctx: &RunContext,
    live: &mut [Live],
    who: &[usize],
    slot: &Slot,
    res: &mut StudyResults,
) -> Result<Vec<CellResult>> {
    let study = ctx.study;
    let what = format!("{} {} thr", slot.step, slot.threads);
    ctx.progress.start(&format!(
        "round {} {what}: {} servers alternating",
        slot.round + 1,
        who.len()
    ));
    let seed = cell_seed(res.seed, slot.round, &slot.step, slot.threads);
    let mut gathered: Vec<Gathered> = who.iter().map(|_| Gathered::default()).collect();
    if study.warmup > 0.0 {
        for (g, &k) in gathered.iter_mut().zip(who) {
            let plan = plan(study, slot, slot.key(&live[k].variant.name), seed, 0);
            if let Err(e) = with_target(live, k, |t| {
                cell::driver_run(&plan, t, study.warmup, 0).map(|_| ())
            }) {
                g.failure = Some(format!("warm-up: {e:#}"));
            }
        }
    }
    let (n, slice_s) = slicing(study.duration, study.slice_s());
    let started = std::time::Instant::now();
    for (position, j) in sequence(who.len(), n).into_iter().enumerate() {
        let k = who[j];
        if gathered[j].failure.is_some() {
            continue;
        }
        let own = gathered[j].slices.len() as u64;
        let key = slot.key(&live[k].variant.name);
        let plan = plan(study, slot, key.clone(), seed, own);
        let at_s = started.elapsed().as_secs_f64();
        let g = &mut gathered[j];
        let outcome = slice_with_attempts(study, live, k, &plan, slice_s, &mut g.latency);
        if crate::server::registry::stopping() {
            anyhow::bail!("stopped by a signal during {what}");
        }
        match outcome {
            Ok(cell) if live[k].sandbox.is_running() => g.slices.push(Slice {
                position: position as u32,
                at_s,
                cell,
            }),
            outcome => {
                let dead = !live[k].sandbox.is_running();
                let mut msg = outcome.err().map(|e| format!("{e:#}")).unwrap_or_default();
                if dead {
                    let note = death_note(&live[k].sandbox);
                    msg = if msg.is_empty() {
                        note
                    } else {
                        format!("{msg}; {note}")
                    };
                    res.notes.push(restarted_note(
                        slot.round,
                        &live[k].variant.name,
                        &slot.step,
                        slot.threads,
                    ));
                    live[k].restart(ctx, res)?;
                }
                ctx.progress
                    .note(&format!("{} {what} failed: {msg}", live[k].variant.name));
                g.failure = Some(msg);
            }
        }
    }
    Ok(who
        .iter()
        .zip(gathered)
        .map(|(&k, g)| {
            let key = slot.key(&live[k].variant.name);
            match g.failure {
                Some(msg) => cell::failed(key, msg),
                None => combine(key, &g.slices, &g.latency, &study.limits),
            }
        })
        .collect())
}

/// A variant's slice plan: its own n-th slice draws the same keys as every other variant's.
fn plan<'a>(study: &'a Study, slot: &Slot<'a>, key: CellKey, seed: u64, own: u64) -> CellPlan<'a> {
    CellPlan {
        seed: seed.wrapping_add(own.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1,
        key,
        workload: slot.workload,
        warmup_s: 0.0,
        duration_s: study.duration,
        limits: &study.limits,
        profile: None,
    }
}

/// Run `f` against live server `k`, the others named as idle.
fn with_target<T>(live: &[Live], k: usize, f: impl FnOnce(&Target) -> Result<T>) -> Result<T> {
    let l = &live[k];
    let endpoint = l
        .sandbox
        .tcp_endpoint()
        .with_database(Some(dataset::DATABASE));
    let admin = l.sandbox.admin_endpoint();
    let idle: Vec<i32> = live
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != k)
        .filter_map(|(_, o)| o.sandbox.pid())
        .collect();
    let target = Target {
        endpoint: &endpoint,
        admin: &admin,
        server_pid: l.sandbox.pid().context("server not running")?,
        device: l.device.as_ref(),
        regime: l.regime,
        idle_servers: &idle,
    };
    f(&target)
}

/// One slice, measured again (up to `limits.attempts`) when another process took CPU; the
/// latencies of the kept attempt join the variant's.
fn slice_with_attempts(
    study: &Study,
    live: &[Live],
    k: usize,
    plan: &CellPlan,
    slice_s: f64,
    latency: &mut Latencies,
) -> Result<CellResult> {
    let mut attempts = 0;
    loop {
        attempts += 1;
        let mut lat = Latencies::default();
        let mut c = with_target(live, k, |target| {
            cell::probed(&plan.key, plan.limits, None, target, || {
                let report = cell::driver_run(plan, target, slice_s, 0)?;
                lat.add(&report.totals.latency());
                let ops = report.totals.events;
                Ok(cell::Measured {
                    throughput: ops as f64 / report.total_time_s.max(1e-9),
                    ops,
                    report,
                    insert_benchmark: None,
                })
            })
        })?;
        c.attempts = attempts;
        if !c.flags.contains(&Flag::Contaminated) || attempts >= study.limits.attempts.max(1) {
            latency.add(&lat);
            return Ok(c);
        }
    }
}
