//! `psbench run [STUDY] [overrides]`: run a study (or finish an interrupted one) and print
//! its headline tables.

use crate::error::usage;
use crate::report::{render::publish, Subject};
use crate::results::study::Mode;
use crate::run::{runner, shard};
use crate::server::Home;
use crate::study::{basedirs::Basedir, load, overrides::Overrides, plan};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// While the study runs: its report files rewritten with where it stands, and once the counts
/// are in (before any round) the table at a glance so far on screen.
fn report_so_far(out_dir: PathBuf) -> crate::run::checkpoint::Checkpoint {
    Box::new(move |res, standing| {
        let mut subject = Subject::study(res.clone(), &out_dir.display().to_string());
        subject.running = Some(standing.line());
        if let Err(e) = crate::report::render::files::write_all(&subject, &out_dir) {
            return Some(format!(
                "psbench: warning: the report so far could not be written: {e:#}"
            ));
        }
        let report = out_dir.join(crate::report::render::files::HTML);
        Some(match standing.rounds_done {
            0 => format!(
                "{}\nreport so far: {} (rewritten after each round)\n",
                crate::report::render::markdown::so_far(&subject),
                report.display()
            ),
            done => format!(
                "round {done} of {} done: {} rewritten; {}",
                standing.rounds,
                report.display(),
                standing.line()
            ),
        })
    })
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// A study file (TOML) or a built-in study name (see `psbench studies`) [default: pfs-overhead]
    study: Option<String>,
    /// Measured seconds per cell
    #[arg(long, allow_negative_numbers = true)]
    time: Option<f64>,
    /// Warm-up seconds before each cell
    #[arg(long, allow_negative_numbers = true)]
    warmup: Option<f64>,
    /// Rounds (each runs every variant once, in an order balanced over rounds)
    #[arg(long)]
    rounds: Option<u32>,
    /// Thread counts, e.g. 1,2,4
    #[arg(long, value_delimiter = ',')]
    threads: Option<Vec<u32>>,
    /// Drop thread counts above this
    #[arg(long)]
    max_threads: Option<u32>,
    /// Only these variants, e.g. ps_off,default
    #[arg(long, value_delimiter = ',')]
    variants: Option<Vec<String>>,
    /// Run the variants on the server tree at PATH (every variant), or VARIANT's only on it
    /// (repeatable): as the study file's `basedir` key, in place of its version or build
    #[arg(long, value_name = "PATH|VARIANT=PATH")]
    basedir: Vec<String>,
    /// Only these workload steps, e.g. point_select,read_write
    #[arg(long, value_delimiter = ',')]
    workloads: Option<Vec<String>>,
    /// Cost mode only: instructions per transaction under callgrind
    #[arg(long)]
    cost: bool,
    /// Every variant in both modes, at full size (5 rounds of 10 s)
    #[arg(long)]
    full: bool,
    /// Sample the server with perf during measured windows (the study's [profile] cells, by
    /// default the first round): flame graphs and per-transaction differentials in profiles/
    #[arg(long)]
    profile: bool,
    /// Locate each change a sweep's counts show: measure the releases between its two sides
    /// by bisection until the first release carrying it is found (with --resume: on a study
    /// already run)
    #[arg(long)]
    locate: bool,
    /// Print what the study will do (servers fetched or built, data, cells per mode, rounds,
    /// expected time) and exit without starting anything; with --resume, what is left
    #[arg(long)]
    plan: bool,
    /// Results directory [default: psbench-out/NAME-TIMESTAMP, NAME the study's]
    #[arg(long)]
    out: Option<PathBuf>,
    /// Finish an interrupted study in this results directory
    #[arg(long, conflicts_with_all = ["study", "out", "shard"])]
    resume: Option<PathBuf>,
    /// Run only shard K of N (from 0) of the rounds, for `psbench merge` to join: K/N, or
    /// auto / auto/N to read K (and N) from a Kubernetes Indexed Job or a Slurm job array
    #[arg(long, value_name = "K/N|auto[/N]")]
    shard: Option<String>,
    /// With --shard: run cost mode on every shard (default: shard 0 only), so that `merge`
    /// shows how far the hosts' instruction counts agree
    #[arg(long, requires = "shard")]
    cost_on_every_shard: bool,
    #[command(flatten)]
    export: super::report::ExportArgs,
}

/// The interrupted study in `dir`, with more rounds when `--rounds` asks for them: a resumed
/// study keeps what it was started with, so any other change to it is refused, not ignored.
fn resumed(a: &RunArgs, dir: &std::path::Path) -> Result<(crate::results::study::Study, String)> {
    let given = [
        ("--time", a.time.is_some()),
        ("--warmup", a.warmup.is_some()),
        ("--threads", a.threads.is_some()),
        ("--max-threads", a.max_threads.is_some()),
        ("--variants", a.variants.is_some()),
        ("--workloads", a.workloads.is_some()),
        ("--cost", a.cost),
        ("--full", a.full),
        ("--profile", a.profile),
        ("--basedir", !a.basedir.is_empty()),
    ];
    if let Some((flag, _)) = given.iter().find(|(_, on)| *on) {
        return Err(usage(format!(
            "{flag} with --resume: a resumed study keeps the cells it was started with; only --rounds (to add rounds), --locate and --plan go with --resume"
        )));
    }
    let r = crate::results::StudyResults::load(dir)?;
    let (mut study, origin) = (r.study, r.origin);
    if let Some(n) = a.rounds {
        if r.sharding.shard.is_some() {
            return Err(usage(format!(
                "--rounds {n} with --resume: {} is one shard of a study, whose rounds its shards share; run more rounds as a new study",
                dir.display()
            )));
        }
        if n < study.rounds {
            return Err(usage(format!(
                "--rounds {n} with --resume: {} already has {} rounds; --rounds can only add rounds (give {} or more)",
                dir.display(),
                study.rounds,
                study.rounds
            )));
        }
        study.rounds = n;
    }
    Ok((study, origin))
}

pub fn command(a: RunArgs, home: &Home, history: &std::path::Path) -> Result<()> {
    let exports = a.export.exports();
    exports.check()?;
    // With --plan: the study as its file defines it (what its measured time is for).
    let (study, origin, out_dir, resume, as_defined) = match &a.resume {
        Some(dir) => {
            let (study, origin) = resumed(&a, dir)?;
            let defined = a.plan.then(|| study.clone());
            (study, origin, dir.clone(), true, defined)
        }
        None => {
            let (mut study, origin) = load::named(a.study.as_deref())?;
            let defined = match a.plan {
                true => {
                    let mut d = study.clone();
                    Overrides::as_defined(&mut d)?;
                    Some(d)
                }
                false => None,
            };
            Overrides {
                time: a.time,
                warmup: a.warmup,
                rounds: a.rounds,
                threads: a.threads,
                max_threads: a.max_threads,
                variants: a.variants,
                workloads: a.workloads,
                cost_only: a.cost,
                full: a.full,
                profile: a.profile,
                basedirs: a
                    .basedir
                    .iter()
                    .map(|b| Basedir::parse(b))
                    .collect::<Result<_>>()?,
            }
            .apply(&mut study)?;
            let out = a
                .out
                .unwrap_or_else(|| runner::default_out_dir(&study.name));
            (study, origin, out, false, defined)
        }
    };
    let mut study = study;
    if a.locate {
        study.locate = true;
        crate::study::file::check_locate(&study).map_err(|e| usage(format!("--locate: {e}")))?;
    }
    let shard = match &a.shard {
        Some(spec) => {
            let s = shard::parse(spec, a.cost_on_every_shard, &|k| std::env::var(k).ok())?;
            if study.mode == Mode::Cost && !s.runs_cost() {
                return Err(usage(format!(
                    "--shard {spec}: a cost-mode study runs whole in shard 0 (instruction counts do not depend on the host); shard {} would do nothing (--cost-on-every-shard repeats it there)",
                    s.describe()
                )));
            }
            if s.rounds(study.rounds).is_empty() {
                return Err(usage(format!(
                    "--shard {}: a study of {} round(s) has none for shard {}",
                    spec,
                    study.rounds,
                    s.describe()
                )));
            }
            eprintln!(
                "shard {} of study {}: {}",
                s.describe(),
                study.name,
                crate::study::plan::shard_rounds_text(&s.rounds(study.rounds), study.rounds)
            );
            Some(s)
        }
        None => None,
    };
    if let Some(defined) = as_defined {
        // What a real run refuses before writing anything, `--plan` refuses too.
        crate::engines::trees::check(&study)?;
        let done = match resume {
            true => Some(crate::results::StudyResults::load(&out_dir)?),
            false => None,
        };
        let plan = plan::Plan {
            study: &study,
            origin: &origin,
            as_defined: &defined,
            shard: shard.as_ref(),
            done: done.as_ref(),
            counts_here: &crate::history::count_times::on_host(
                history,
                &crate::probes::host::current(),
            ),
        };
        print!("{}", plan.render());
        return Ok(());
    }
    let res = runner::run_study(runner::Request {
        study,
        origin,
        out_dir: out_dir.clone(),
        home: home.clone(),
        resume,
        shard,
        checkpoint: Some(report_so_far(out_dir.clone())),
    })?;
    let failed = res.cells.iter().any(|c| !c.ok) || res.cost.iter().any(|c| !c.ok);
    // A shard is part of a study: its merge is what the history gets.
    let whole = res.sharding.shard.is_none();
    let subject = Subject::study(res, &out_dir.display().to_string());
    publish::study_finished(&subject, &out_dir)?;
    exports.write(
        &subject,
        Some(&out_dir.join(crate::results::document::FILE_NAME)),
    )?;
    if whole {
        crate::history::add_finished(&subject.results, &out_dir, history)?;
    }
    if failed {
        return Err(anyhow::anyhow!(
            "some cells failed (see the tables and results.json)"
        ));
    }
    Ok(())
}
