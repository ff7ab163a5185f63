//! A study's cost mode: each variant's server under callgrind, every cost step measured on
//! it, each result written to the document as soon as it is known.

use super::context::{cell_seed, record, RunContext, COST_SEED};
use super::{dataset, variant};
use crate::cost::{self, ibench, Counter};
use crate::results::study::Variant;
use crate::results::study::WorkloadStep;
use crate::results::{CostResult, StudyResults};
use crate::workloads::kinds::Counted;
use anyhow::{Context, Result};
use std::time::{Duration, Instant};

/// Said in every study whose cost mode ran more than one server binary.
const LAYOUT_NOTE: &str = "Cost mode compares binaries built differently: instruction counts differ by code layout and compiler as well as by logic.";

pub(super) fn run_cost(
    ctx: &RunContext,
    variants: &[&Variant],
    res: &mut StudyResults,
) -> Result<()> {
    let RunContext {
        req,
        study,
        datadirs,
        prefix,
        progress,
        ..
    } = *ctx;
    if variants.is_empty() {
        return Ok(());
    }
    let binaries: std::collections::BTreeSet<_> = variants.iter().map(|v| &v.basedir).collect();
    if binaries.len() > 1 && !res.notes.iter().any(|n| n == LAYOUT_NOTE) {
        res.notes.push(LAYOUT_NOTE.to_string());
    }
    for v in variants {
        let pending: Vec<_> = study
            .cost_steps()
            .into_iter()
            .filter(|w| {
                study
                    .cost_labels(w)
                    .iter()
                    .any(|l| res.cost_for(&v.name, l).is_none())
            })
            .collect();
        if pending.is_empty() {
            continue;
        }
        let name = variant::sandbox_name(prefix, &format!("cost-{}", v.name));
        // Inside the sandbox, which the server's account owns: it writes the dumps.
        let dumps = req.home.sandbox_dir(&name).join("callgrind");
        std::fs::create_dir_all(&dumps).with_context(|| format!("creating {}", dumps.display()))?;
        // The engine's choice: how its server's work is counted, and what its server needs to
        // run under valgrind.
        let engine = crate::engines::variant::engine(v);
        let counter = engine.counting();
        let extra_options = engine.cost_options(&variant::options(v)?);
        let launch = variant::Launch {
            database: super::dataset::DATABASE,
            variant: v,
            home: &req.home,
            sandbox_name: name.clone(),
            datadir: &datadirs[&v.basedir].dir,
            extra_options,
            wrapper: counter.wrapper(&dumps)?,
            ready_timeout: Duration::from_secs(300),
            cpus: super::placement::server_cpus(study),
        };
        progress.start(&format!("cost: starting {} under callgrind", v.name));
        // Wall time per result, the server's start counted in its variant's first step.
        let mut began = Instant::now();
        let (sb, prov) = variant::start(&launch)?;
        record(
            res,
            crate::results::document::cost_provenance_key(&v.name),
            prov,
        );
        let target = cost::Target {
            pid: sb.pid().context("server not running")?,
            endpoint: sb.admin_endpoint().with_database(Some(dataset::DATABASE)),
            account: sb.server_account().cloned(),
            dumps: dumps.clone(),
        };
        for w in pending {
            let workloads = match study.counted_of(w)? {
                Counted::Sequence { .. } => {
                    cost_of_sequence(ctx, v, w, counter, &target, &mut began, res)?;
                    continue;
                }
                Counted::Transactions(workloads) => workloads,
            };
            for (label, workload) in workloads {
                if res.cost_for(&v.name, &label).is_some() {
                    continue;
                }
                progress.start(&format!("cost: {} {label}", v.name));
                let seed = cell_seed(COST_SEED, 0, &label, 1);
                let windows = w.cost_events.clone().unwrap_or(study.cost.events.clone());
                // Heavier transactions take fewer warm-up transactions, as they take fewer
                // measured ones.
                let plan = cost::Plan {
                    warmup: study.cost.warmup_events.min(windows[0]),
                    windows,
                };
                let mut entry = CostResult::new(&v.name, &label);
                if workload.unit() == Some("statements") {
                    entry.unit = crate::results::document::CostUnit::Statement;
                }
                match cost::measure(counter, &target, workload.as_ref(), &plan, seed) {
                    Ok(m) => {
                        if m.unstable {
                            progress.note(&format!(
                                "cost {} {label} unstable: estimates {}",
                                v.name,
                                cost_estimates(&m.estimates)
                            ));
                        }
                        entry.ok = true;
                        entry.ir_per_txn = m.ir_per_txn;
                        entry.estimates = m.estimates;
                        entry.unstable = m.unstable;
                        entry.windows = m.windows.iter().map(cost::Window::recorded).collect();
                    }
                    Err(e) if crate::server::registry::stopping() => {
                        return Err(e.context("stopped by a signal"));
                    }
                    Err(e) => {
                        let msg = format!("{e:#}");
                        progress.note(&format!("cost {} {label} failed: {msg}", v.name));
                        entry.error = Some(msg);
                    }
                };
                entry.seconds = Some(began.elapsed().as_secs_f64());
                began = Instant::now();
                res.cost.push(entry);
                res.save(&req.out_dir)?;
                progress.done();
            }
        }
        drop(sb);
        variant::discard(&req.home, &name);
    }
    Ok(())
}

/// The cost results of an entry whose steps run in order (the Insert Benchmark's) on the
/// variant's server, each recorded and saved as soon as it is known.
fn cost_of_sequence(
    ctx: &RunContext,
    v: &Variant,
    w: &WorkloadStep,
    counter: &dyn Counter,
    target: &cost::Target,
    began: &mut Instant,
    res: &mut StudyResults,
) -> Result<()> {
    let missing: Vec<String> = ctx
        .study
        .cost_labels(w)
        .into_iter()
        .filter(|l| res.cost_for(&v.name, l).is_none())
        .collect();
    let entry = super::ibench_cost::cost_entry(ctx.study, w, COST_SEED, &missing)?;
    let queries = entry.steps.iter().any(|s| s.counted && s.step.is_query());
    if queries && !res.notes.iter().any(|n| n == ibench::QUERY_NOTE) {
        res.notes.push(ibench::QUERY_NOTE.to_string());
    }
    let mut rec = Recorder { ctx, v, began, res };
    ibench::measure_entry(counter, target, &entry, &mut rec)
}

/// Records an Insert Benchmark step's cost result, saves the document and moves the progress on.
struct Recorder<'a, 'b> {
    ctx: &'a RunContext<'b>,
    v: &'a Variant,
    began: &'a mut Instant,
    res: &'a mut StudyResults,
}

impl ibench::Record for Recorder<'_, '_> {
    fn begin(&mut self, label: &str) {
        self.ctx
            .progress
            .start(&format!("cost: {} {label}", self.v.name));
    }

    fn done(&mut self, mut entry: CostResult) -> Result<()> {
        let (progress, name) = (self.ctx.progress, &self.v.name);
        entry.variant = name.clone();
        if let Some(e) = &entry.error {
            progress.note(&format!("cost {name} {} failed: {e}", entry.step));
        } else if entry.unstable {
            progress.note(&format!(
                "cost {name} {} unstable: estimates {}",
                entry.step,
                cost_estimates(&entry.estimates)
            ));
        }
        entry.seconds = Some(self.began.elapsed().as_secs_f64());
        *self.began = Instant::now();
        self.res.cost.push(entry);
        self.res.save(&self.ctx.req.out_dir)?;
        progress.done();
        Ok(())
    }
}

fn cost_estimates(e: &[f64]) -> String {
    e.iter()
        .map(|x| format!("{x:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}
