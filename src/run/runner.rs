//! Runs a study as its pipeline: the checks and the document (prepare.rs), cost mode over its
//! variants, then the throughput rounds, writing the results document after every cell so
//! that nothing finished is lost and `--resume` can complete an interrupted study.

use super::checkpoint::Rounds;
pub use super::context::Request;
use super::context::RunContext;
use super::progress::Progress;
use super::{alternate, cost_runner, dataset, host_probe, locate, prepare, throughput, work};
use crate::results::study::Schedule;
use crate::results::StudyResults;
use crate::study::measures;
use anyhow::Result;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

pub fn run_study(req: Request) -> Result<StudyResults> {
    prepare::check(&req.study)?;
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

/// The study in its (existing) results directory: its document, cost mode, the throughput
/// rounds, then what finishes it.
fn run_in(req: Request) -> Result<StudyResults> {
    let mut res = prepare::document(&req)?;
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
    let mut round_numbers: Vec<u32> = turns.iter().map(|t| t.round).collect();
    round_numbers.dedup();
    let rounds = RefCell::new(Rounds::new(
        round_numbers.len() as u32,
        Duration::from_secs_f64(crate::study::plan::round_seconds(&study)),
    ));
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
        rounds: &rounds,
    };
    progress.start("probing the host: wake-ups, governor");
    let probed = host_probe::start(&mut res);
    let client = super::placement::place_client(&study)?;
    cost(&ctx, cost_todo > 0 && !turns.is_empty(), &mut res)?;
    rounds.borrow_mut().restart();
    match study.schedule {
        Schedule::Turns => throughput::run_throughput(&ctx, &turns, &mut res)?,
        Schedule::Alternate => alternate::run_alternating(&ctx, &mut res)?,
    }
    drop(client);
    host_probe::finish(&mut res, &probed);
    progress.finish();
    finish(&req.out_dir, res)
}

/// Cost mode over the variants it counts (and the releases `--locate` adds); the counts
/// answer first when throughput rounds follow: the report so far.
fn cost(ctx: &RunContext, rounds_follow: bool, res: &mut StudyResults) -> Result<()> {
    if !measures::runs_cost(res) {
        return Ok(());
    }
    cost_runner::run_cost(ctx, &measures::cost_variants(ctx.study), res)?;
    if res.study.locate {
        locate::run(ctx, res)?;
    }
    if rounds_follow {
        ctx.tell(res, &ctx.rounds.borrow().standing());
    }
    Ok(())
}

/// The profiles' outputs, and the document saved as finished.
fn finish(out_dir: &Path, mut res: StudyResults) -> Result<StudyResults> {
    profile_outputs(out_dir, &mut res);
    res.finished_unix = Some(prepare::now_unix());
    res.save(out_dir)?;
    Ok(res)
}

/// Data once per server binary, shared by every variant of that binary. An Insert
/// Benchmark-only study still starts from the (small) default dataset.
fn datadirs(
    req: &Request,
    study: &crate::results::study::Study,
    res: &mut StudyResults,
) -> Result<BTreeMap<Option<PathBuf>, dataset::Prepared>> {
    let mut datadirs = BTreeMap::new();
    let all: Vec<&crate::results::study::Variant> = study.variants.iter().collect();
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
