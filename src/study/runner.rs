//! Runs a study: cost mode over its variants, then interleaved throughput rounds, writing the
//! results document after every cell so that nothing finished is lost and `--resume` can
//! complete an interrupted study.

use super::cell::{self, CellPlan, Target};
use super::file::{Mode, Study, Variant};
use super::progress::Progress;
use super::{cost_runner, dataset, variant};
use crate::results::document::{FORMAT, VERSION};
use crate::results::{CellKey, CellResult, Host, Resources, StudyResults};
use crate::server::{errorlog, Home, Sandbox};
use crate::workloads::sysbench::sysbench_workload;
use anyhow::{Context, Result};
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub struct Request {
    pub study: Study,
    pub origin: String,
    pub out_dir: PathBuf,
    pub home: Home,
    /// Continue the results document in `out_dir` instead of starting a new one.
    pub resume: bool,
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Variants that name a MariaDB version get the basedir of that release, fetched if missing.
fn resolve_versions(study: &mut Study) -> Result<()> {
    for v in &mut study.variants {
        if let (Some(ver), None) = (&v.version, &v.basedir) {
            let dir = crate::server::fetch::mariadb(
                ver,
                &crate::server::fetch::cache_dir(),
                &mut std::io::stderr(),
            )?;
            v.basedir = Some(dir);
        }
    }
    Ok(())
}

/// Record a variant's provenance the first time it starts, with the checksum of its binary.
pub(super) fn record(
    res: &mut StudyResults,
    key: String,
    mut prov: crate::results::VariantProvenance,
) {
    if res.variants.contains_key(&key) {
        return;
    }
    prov.server_sha256 =
        crate::server::fetch::sha256(std::path::Path::new(&prov.server_binary)).unwrap_or_default();
    res.variants.insert(key, prov);
}

/// The variants measured in throughput mode, in the study's order.
pub fn throughput_variants(s: &Study) -> Vec<&Variant> {
    match s.mode {
        Mode::Cost => Vec::new(),
        Mode::Throughput => s.variants.iter().collect(),
        Mode::Both => match &s.throughput_variants {
            Some(names) => s
                .variants
                .iter()
                .filter(|v| names.contains(&v.name))
                .collect(),
            None => s.variants.iter().collect(),
        },
    }
}

pub fn cost_variants(s: &Study) -> Vec<&Variant> {
    match s.mode {
        Mode::Throughput => Vec::new(),
        _ => s.variants.iter().collect(),
    }
}

/// Round `r` runs the variants in an order rotated by `r` (ABC, BCA, CAB, …), so that no
/// variant is always first after a quiet spell or last in a drift.
pub fn rotated<T: Clone>(items: &[T], round: u32) -> Vec<T> {
    if items.is_empty() {
        return Vec::new();
    }
    let k = round as usize % items.len();
    items[k..].iter().chain(&items[..k]).cloned().collect()
}

/// The same seed for every variant of a (round, step, threads), so that they see the same draws.
pub(super) fn cell_seed(base: u64, round: u32, step: &str, threads: u32) -> u64 {
    let mut h = DefaultHasher::new();
    (base, round, step, threads).hash(&mut h);
    h.finish() | 1
}

pub fn run(req: Request) -> Result<StudyResults> {
    check_client_limits(&req.study)?;
    std::fs::create_dir_all(&req.out_dir)
        .with_context(|| format!("creating {}", req.out_dir.display()))?;
    let mut res = if req.resume {
        let r = StudyResults::load(&req.out_dir)?;
        eprintln!(
            "resuming {} in {}: {} cell(s) and {} cost measurement(s) already done",
            r.study.name,
            req.out_dir.display(),
            r.cells.len(),
            r.cost.len()
        );
        r
    } else {
        StudyResults {
            format: FORMAT.into(),
            version: VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            study: req.study.clone(),
            origin: req.origin.clone(),
            host: Host::current(),
            started_unix: now_unix(),
            finished_unix: None,
            seed: crate::driver::resolve_seed(0),
            variants: BTreeMap::new(),
            cells: Vec::new(),
            cost: Vec::new(),
            notes: Vec::new(),
        }
    };
    res.finished_unix = None;
    resolve_versions(&mut res.study)?;
    res.save(&req.out_dir)?;
    let study = res.study.clone();
    let out_dir = req.out_dir.clone();
    crate::server::registry::on_signal(move || {
        eprintln!(
            "psbench: finished cells are kept in {}; finish the rest with: psbench run --resume {}",
            out_dir.display(),
            out_dir.display()
        );
    });

    let tput = throughput_variants(&study);
    let costv = cost_variants(&study);
    let mut todo_cells = 0u64;
    for round in 0..study.rounds {
        for v in &tput {
            for (step, threads) in study.cells() {
                let key = CellKey {
                    round,
                    variant: v.name.clone(),
                    step,
                    threads,
                };
                if res.cell(&key).is_none() {
                    todo_cells += 1;
                }
            }
        }
    }
    let todo_cost = costv
        .iter()
        .flat_map(|v| study.cost_steps().into_iter().map(move |w| (v, w)))
        .filter(|(v, w)| res.cost_for(&v.name, &w.label()).is_none())
        .count() as u64;
    let progress = Progress::new(todo_cells + todo_cost);

    // Data once per server binary, shared by every variant of that binary.
    // An Insert Benchmark-only study still starts from the (small) default dataset.
    let data_opts = match study.sysbench_steps().first() {
        Some(w) => study.workload_options(w)?,
        None => study
            .workload_options(&study.workloads[0])
            .unwrap_or_default(),
    };
    let mut datadirs: BTreeMap<Option<PathBuf>, PathBuf> = BTreeMap::new();
    for v in &study.variants {
        if !datadirs.contains_key(&v.basedir) {
            let d = dataset::prepared(
                &req.home,
                v.basedir.as_deref(),
                &data_opts,
                &mut std::io::stderr(),
            )?;
            datadirs.insert(v.basedir.clone(), d);
        }
    }
    let prefix = format!("s{}", std::process::id());

    let scope = Scope {
        req: &req,
        study: &study,
        datadirs: &datadirs,
        prefix: &prefix,
        progress: &progress,
    };
    cost_runner::run_cost(&scope, &costv, &mut res)?;
    run_throughput(&scope, &tput, &mut res)?;
    profile_outputs(&req.out_dir, &mut res);

    progress.finish();
    res.finished_unix = Some(now_unix());
    res.save(&req.out_dir)?;
    Ok(res)
}

/// The tail of a dead server's error log, for a failed cell.
fn death_note(sb: &Sandbox) -> String {
    let log = errorlog::since(sb.error_log(), 0);
    format!(
        "server died; last lines of its error log:\n{}",
        errorlog::tail(&log, 8)
    )
}

fn failed_cell(key: CellKey, error: String) -> CellResult {
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
        resources: Resources::default(),
        flags: Vec::new(),
        profile: None,
        insert_benchmark: None,
    }
}

/// Flame graphs, differentials and the "frames that grew" table of the profiled cells; a
/// failure here costs the profiles, not the study.
fn profile_outputs(out_dir: &Path, res: &mut StudyResults) {
    let notes = crate::profile::outputs::write_all(res, out_dir)
        .unwrap_or_else(|e| vec![format!("profile outputs could not be written: {e:#}")]);
    for n in notes {
        if !res.notes.contains(&n) {
            res.notes.push(n);
        }
    }
}

/// What every part of a study's run shares: the request, the study as run, the prepared
/// datadir of each server binary, this run's sandbox-name prefix, the progress display.
pub(super) struct Scope<'a> {
    pub req: &'a Request,
    pub study: &'a Study,
    pub datadirs: &'a BTreeMap<Option<PathBuf>, PathBuf>,
    pub prefix: &'a str,
    pub progress: &'a Progress,
}

fn run_throughput(scope: &Scope, variants: &[&Variant], res: &mut StudyResults) -> Result<()> {
    let Scope {
        req,
        study,
        datadirs,
        prefix,
        progress,
    } = *scope;
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
    let mut profiling = crate::profile::Session::new(&study.profile, &req.out_dir);
    for round in 0..study.rounds {
        for v in rotated(variants, round) {
            let cells: Vec<(usize, u32)> = workloads
                .iter()
                .enumerate()
                .flat_map(|(i, (w, _))| study.threads_for(w).into_iter().map(move |t| (i, t)))
                .filter(|(i, t)| {
                    res.cell(&CellKey {
                        round,
                        variant: v.name.clone(),
                        step: workloads[*i].0.label(),
                        threads: *t,
                    })
                    .is_none()
                })
                .collect();
            let ibench: Vec<&crate::study::file::WorkloadStep> = study
                .workloads
                .iter()
                .filter(|w| w.is_insert_benchmark())
                .filter(|w| {
                    study.cells_of(w).into_iter().any(|(step, threads)| {
                        res.cell(&CellKey {
                            round,
                            variant: v.name.clone(),
                            step,
                            threads,
                        })
                        .is_none()
                    })
                })
                .collect();
            if cells.is_empty() && ibench.is_empty() {
                continue;
            }
            let name = variant::sandbox_name(prefix, &v.name);
            let launch = variant::Launch {
                variant: v,
                home: &req.home,
                sandbox_name: name.clone(),
                datadir: &datadirs[&v.basedir],
                extra_options: Vec::new(),
                wrapper: Vec::new(),
                ready_timeout: Duration::from_secs(120),
            };
            progress.start(&format!("round {} {}: starting", round + 1, v.name));
            let (mut sb, prov) = variant::start(&launch)?;
            record(res, v.name.clone(), prov);
            for (i, threads) in cells {
                let (w, workload) = &workloads[i];
                let key = CellKey {
                    round,
                    variant: v.name.clone(),
                    step: w.label(),
                    threads,
                };
                progress.start(&format!(
                    "round {} {} {} {} thr",
                    round + 1,
                    v.name,
                    w.label(),
                    threads
                ));
                let sampler = match (profiling.as_mut(), sb.pid()) {
                    (Some(p), Some(pid)) => {
                        p.for_cell(&key, pid, &sb.binaries().server, &mut res.notes)
                    }
                    _ => None,
                };
                let mut result = run_cell_with_attempts(
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
                    result = Ok(failed_cell(key.clone(), msg.clone()));
                    progress.note(&format!(
                        "{} {} {} thr failed: {msg}",
                        v.name,
                        w.label(),
                        threads
                    ));
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
                let cell = match result {
                    Ok(c) => c,
                    Err(e) => {
                        let msg = format!("{e:#}");
                        progress.note(&format!(
                            "{} {} {} thr failed: {msg}",
                            v.name,
                            w.label(),
                            threads
                        ));
                        failed_cell(key, msg)
                    }
                };
                res.cells.push(cell);
                res.save(&req.out_dir)?;
                progress.done();
            }
            for w in &ibench {
                let ctx = IbenchCells {
                    study,
                    sb: &sb,
                    round,
                    variant: &v.name,
                    base_seed: res.seed,
                    progress,
                };
                for cell in ibench_sequence(&ctx, w)? {
                    if res.cell(&cell.key).is_none() {
                        res.cells.push(cell);
                    }
                    res.save(&req.out_dir)?;
                }
            }
            drop(sb);
            variant::discard(&req.home, &name);
        }
    }
    Ok(())
}

struct IbenchCells<'a> {
    study: &'a Study,
    sb: &'a Sandbox,
    round: u32,
    variant: &'a str,
    base_seed: u64,
    progress: &'a Progress,
}

/// An Insert Benchmark entry on a running variant: every step in order on fresh tables (the
/// steps build on each other), each a cell. A failed step ends the sequence: the rest would
/// measure tables in an unknown state.
fn ibench_sequence(
    c: &IbenchCells,
    w: &crate::study::file::WorkloadStep,
) -> Result<Vec<CellResult>> {
    let opts = c.study.ibench_options(w)?;
    let steps = c.study.ibench_steps(w)?;
    let endpoint = c.sb.tcp_endpoint();
    let admin = c.sb.admin_endpoint();
    let target = Target {
        endpoint: &endpoint,
        admin: &admin,
        server_pid: c.sb.pid().context("server not running")?,
    };
    let ib = crate::ibench::Target {
        endpoint: &endpoint,
        opts: &opts,
        percentiles: &[],
    };
    let mut cells = Vec::new();
    let mut previous = None;
    for step in &steps {
        let key = CellKey {
            round: c.round,
            variant: c.variant.to_string(),
            step: w.ibench_label(&step.name),
            threads: opts.clients,
        };
        if crate::ibench::needs_cleanup(previous, step) {
            c.progress.start(&format!(
                "round {} {}: Insert Benchmark cleanup",
                c.round + 1,
                c.variant
            ));
            let mut conn = admin.connect_without_db()?;
            crate::ibench::cleanup::run(&mut conn, opts.clients, opts.cleanup_duration())?;
        }
        previous = Some(step);
        c.progress
            .start(&format!("round {} {} {}", c.round + 1, c.variant, key.step));
        let seed = cell_seed(c.base_seed, c.round, &key.step, opts.clients);
        let measured = cell::probed(&key, &c.study.limits, None, &target, || {
            let (result, report) = crate::ibench::run_step(&ib, step, seed)?;
            Ok(cell::Measured {
                throughput: result.throughput,
                ops: result.operations,
                report,
                insert_benchmark: Some(result),
            })
        });
        match measured {
            Ok(cell) => {
                cells.push(cell);
                c.progress.done();
            }
            Err(e) => {
                let msg = format!("{e:#}");
                c.progress
                    .note(&format!("{} {} failed: {msg}", c.variant, key.step));
                cells.push(failed_cell(key, msg));
                c.progress.done();
                break;
            }
        }
    }
    if let Ok(mut conn) = admin.connect_without_db() {
        let _ = crate::workloads::ibench::schema::drop_database(&mut conn);
    }
    Ok(cells)
}

/// A contaminated cell (another process took CPU) is measured again, up to the limit.
fn run_cell_with_attempts(
    study: &Study,
    sb: &Sandbox,
    key: CellKey,
    workload: &dyn crate::workloads::Workload,
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
        let mut c = cell::run(&plan, &target)?;
        c.attempts = attempts;
        let contaminated = c.flags.contains(&crate::results::Flag::Contaminated);
        if !contaminated || attempts >= study.limits.attempts.max(1) {
            return Ok(c);
        }
    }
}

/// Before any server starts: the study's largest thread count must be one this client can run.
pub fn check_client_limits(study: &Study) -> Result<()> {
    let most = study.cells().iter().map(|(_, t)| *t).max().unwrap_or(1);
    crate::driver::limits::check(most as u64)
}

/// Where a study writes by default: `psbench-out/NAME-YYYYMMDDTHHMMSS`.
pub fn default_out_dir(study: &str) -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(['-', ':'], "")
        .trim_end_matches('Z')
        .to_string();
    Path::new("psbench-out").join(format!("{study}-{stamp}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn rounds_rotate_the_order() {
        let v = ["a", "b", "c"];
        assert_eq!(super::rotated(&v, 0), ["a", "b", "c"]);
        assert_eq!(super::rotated(&v, 1), ["b", "c", "a"]);
        assert_eq!(super::rotated(&v, 5), ["c", "a", "b"]);
    }
}
