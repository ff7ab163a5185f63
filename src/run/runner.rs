//! Runs a study: cost mode over its variants, then interleaved throughput rounds, writing the
//! results document after every cell so that nothing finished is lost and `--resume` can
//! complete an interrupted study.

pub use super::context::Request;
use super::context::RunContext;
use super::progress::Progress;
use super::{alternate, cost_runner, dataset, host_probe, locate, throughput, work};
use crate::results::document::{FORMAT, VERSION};
use crate::results::study::Schedule;
use crate::results::{Sharding, StudyResults};
use crate::study::measures;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// SHA-256 of the study as given: shards of one study share it, whatever paths their hosts
/// resolve its releases to.
fn definition_sha256(study: &crate::study::file::Study) -> Result<String> {
    use sha2::{Digest, Sha256};
    let text = serde_json::to_string(study).context("writing the study definition")?;
    Ok(format!("{:x}", Sha256::digest(text.as_bytes())))
}

/// A new results document, or the one in `out_dir` when resuming.
fn document(req: &Request) -> Result<StudyResults> {
    if req.resume {
        let r = StudyResults::load(&req.out_dir)?;
        eprintln!(
            "resuming {} in {}: {} cell(s) and {} cost measurement(s) already done",
            r.study.name,
            req.out_dir.display(),
            r.cells.len(),
            r.cost.len()
        );
        return Ok(r);
    }
    Ok(StudyResults {
        format: FORMAT.into(),
        version: VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        study: req.study.clone(),
        origin: req.origin.clone(),
        host: crate::probes::host::current(),
        started_unix: now_unix(),
        finished_unix: None,
        seed: crate::driver::resolve_seed(0),
        variants: BTreeMap::new(),
        cells: Vec::new(),
        cost: Vec::new(),
        notes: Vec::new(),
        steps: Vec::new(),
        frames_that_grew: None,
        datasets: Vec::new(),
        host_probes: Vec::new(),
        sharding: Sharding {
            definition_sha256: definition_sha256(&req.study)?,
            shard: req.shard,
            ..Sharding::default()
        },
    })
}

pub fn run_study(req: Request) -> Result<StudyResults> {
    // A resumed study was checked when it started, on what may have been another machine.
    crate::study::overrides::check_client_limits(&req.study)?;
    super::placement::check(&req.study)?;
    // A tree that is no server, or a scenario it lacks, is refused before anything is written.
    crate::engines::trees::check(&req.study)?;
    // Said once the study is known to start: a refused one is its one line of error.
    eprintln!("study {} -> {}", req.study.name, req.out_dir.display());
    if req.resume {
        return run_in(req);
    }
    let created = super::out_dir::Created::make(&req.out_dir)?;
    run_in(req).inspect_err(|_| {
        // A failed clean-up is said, and the study's own error is the one returned.
        match created.discard_unless_measured() {
            Ok(Some(note)) => eprintln!("note: {note}"),
            Ok(None) => {}
            Err(d) => eprintln!("psbench: warning: {d:#}"),
        }
    })
}

/// The study in its (existing) results directory.
fn run_in(req: Request) -> Result<StudyResults> {
    crate::engines::from_source::check_countable(&crate::study::measures::cost_variants(
        &req.study,
    ))?;
    let mut res = document(&req)?;
    res.finished_unix = None;
    // `--locate` on a resumed study asks for it after the fact.
    res.study.locate |= req.study.locate;
    // `--resume --rounds N` adds rounds (the command line refused fewer): the document says so.
    if req.study.rounds > res.study.rounds {
        let note = format!(
            "rounds raised from {} to {} when resumed",
            res.study.rounds, req.study.rounds
        );
        eprintln!("note: {note}");
        res.notes.push(note);
        res.study.rounds = req.study.rounds;
        res.sharding.definition_sha256 = definition_sha256(&res.study)?;
    }
    if req.study.mode == crate::results::study::Mode::Both {
        for v in &req.study.variants {
            if let Some(why) = crate::engines::from_source::uncountable(v) {
                let note = format!(
                    "{} is measured in throughput only: {why}, so cost mode cannot count it here",
                    v.name
                );
                if !res.notes.contains(&note) {
                    eprintln!("note: {note}");
                    res.notes.push(note);
                }
            }
        }
    }
    // The study as it runs, before builds resolve to paths: `psbench run OUT/study.toml`
    // runs it again.
    crate::study::study_toml::write(&req.out_dir, &res.study)?;
    crate::engines::variant::resolve_builds(&mut res.study)?;
    crate::engines::variant::check_scenarios(&res.study)?;
    if res.steps.is_empty() {
        let mut steps: Vec<String> = Vec::new();
        for (s, _) in res.study.cells() {
            if !steps.contains(&s) {
                steps.push(s);
            }
        }
        res.steps = steps;
    }
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

    let turns = work::turns(&study, &res);
    let cost_todo = measures::cost_results_todo(&study, &res);
    let progress = Progress::new(measures::cells_todo(&study, &res) + cost_todo);
    let datadirs = datadirs(&req, &study, &mut res)?;
    let prefix = format!("s{}", std::process::id());
    let ctx = RunContext {
        req: &req,
        study: &study,
        datadirs: &datadirs,
        prefix: &prefix,
        progress: &progress,
    };
    progress.start("probing the host: wake-ups, governor");
    let probed = host_probe::start(&mut res);
    let client = super::placement::place_client(&study)?;
    if measures::runs_cost(&res) {
        cost_runner::run_cost(&ctx, &measures::cost_variants(&study), &mut res)?;
        if res.study.locate {
            locate::run(&ctx, &mut res)?;
        }
    }
    match study.schedule {
        Schedule::Turns => throughput::run_throughput(&ctx, &turns, &mut res)?,
        Schedule::Alternate => alternate::run_alternating(&ctx, &mut res)?,
    }
    drop(client);
    host_probe::finish(&mut res, &probed);
    profile_outputs(&req.out_dir, &mut res);

    progress.finish();
    res.finished_unix = Some(now_unix());
    res.save(&req.out_dir)?;
    Ok(res)
}

/// Data once per server binary, shared by every variant of that binary. An Insert
/// Benchmark-only study still starts from the (small) default dataset.
fn datadirs(
    req: &Request,
    study: &crate::study::file::Study,
    res: &mut StudyResults,
) -> Result<BTreeMap<Option<PathBuf>, dataset::Prepared>> {
    let mut datadirs = BTreeMap::new();
    let all: Vec<&crate::study::file::Variant> = study.variants.iter().collect();
    dataset::add_datadirs(&req.home, study, &all, res, &mut datadirs)?;
    Ok(datadirs)
}

/// Flame graphs and differentials of the profiled cells, and the frames that grew for the
/// report; a failure here costs the profiles, not the study.
fn profile_outputs(out_dir: &Path, res: &mut StudyResults) {
    let outputs = crate::profile::outputs::write_all(res, out_dir).unwrap_or_else(|e| {
        crate::profile::outputs::Outputs {
            notes: vec![format!("profile outputs could not be written: {e:#}")],
            frames_that_grew: None,
        }
    });
    for n in outputs.notes {
        if !res.notes.contains(&n) {
            res.notes.push(n);
        }
    }
    res.frames_that_grew = outputs.frames_that_grew;
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
