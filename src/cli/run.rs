use crate::report::{self, compare, files, Format, Subject};
use crate::server::Home;
use crate::study::{builtin, file, overrides::Overrides, runner};
use anyhow::Result;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// A study file (TOML) or a built-in study name (see `psbench studies`) [default: pfs-overhead]
    study: Option<String>,
    /// Measured seconds per cell
    #[arg(long)]
    time: Option<f64>,
    /// Warm-up seconds before each cell
    #[arg(long)]
    warmup: Option<f64>,
    /// Rounds (each runs every variant once, in rotating order)
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
    /// Results directory [default: psbench-out/STUDY-TIMESTAMP]
    #[arg(long)]
    out: Option<PathBuf>,
    /// Finish an interrupted study in this results directory
    #[arg(long, conflicts_with_all = ["study", "out"])]
    resume: Option<PathBuf>,
}

pub fn run(a: RunArgs, home: &Home) -> Result<()> {
    let (study, origin, out_dir, resume) = match &a.resume {
        Some(dir) => {
            let r = crate::results::StudyResults::load(dir)?;
            (r.study, r.origin, dir.clone(), true)
        }
        None => {
            let name = a
                .study
                .clone()
                .unwrap_or_else(|| builtin::DEFAULT.to_string());
            let (mut study, origin) = if std::path::Path::new(&name).is_file() {
                let text = std::fs::read_to_string(&name)
                    .map_err(|e| crate::error::usage(format!("cannot read {name}: {e}")))?;
                (file::parse(&text, &name)?, name.clone())
            } else if name.ends_with(".toml") {
                return Err(crate::error::usage(format!("study file {name} not found")));
            } else {
                (builtin::builtin(&name)?, format!("built-in:{name}"))
            };
            Overrides {
                time: a.time,
                warmup: a.warmup,
                rounds: a.rounds,
                threads: a.threads.clone(),
                max_threads: a.max_threads,
                variants: a.variants.clone(),
                workloads: a.workloads.clone(),
                cost_only: a.cost,
                full: a.full,
                profile: a.profile,
            }
            .apply(&mut study)?;
            let out = a
                .out
                .clone()
                .unwrap_or_else(|| runner::default_out_dir(&study.name));
            (study, origin, out, false)
        }
    };
    eprintln!("study {} -> {}", study.name, out_dir.display());
    let res = runner::run(runner::Request {
        study,
        origin,
        out_dir: out_dir.clone(),
        home: home.clone(),
        resume,
    })?;
    let failed = res.cells.iter().any(|c| !c.ok) || res.cost.iter().any(|c| !c.ok);
    let subject = Subject::study(res, &out_dir.display().to_string());
    files::write_all(&subject, &out_dir)?;
    println!("{}", report::markdown::headline(&subject));
    println!("results: {}", out_dir.join("results.json").display());
    println!(
        "report:  {} (all tables: {}, charts: {})",
        out_dir.display(),
        files::SUMMARY,
        files::HTML
    );
    if failed {
        return Err(anyhow::anyhow!(
            "some cells failed (see the tables and results.json)"
        ));
    }
    Ok(())
}

/// `psbench studies`: the built-in studies and the performance_schema scenarios.
pub fn list() -> Result<()> {
    println!(
        "Built-in studies (psbench run NAME; the default is {}):",
        builtin::DEFAULT
    );
    for (name, _) in builtin::BUILTIN {
        let s = builtin::builtin(name)?;
        println!("  {:<14} {}", name, s.description);
    }
    println!("\nperformance_schema scenarios (variant scenario = \"NAME\"):");
    for n in crate::study::scenarios::NAMES {
        let sc = crate::study::scenarios::scenario(n)?;
        println!("  {:<18} {}", n, sc.description);
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A results directory (or its results.json)
    dir: PathBuf,
    /// Print the whole report in this format and write nothing [default: print the headline
    /// tables in Markdown and (re)write summary.md, report.html, bench.txt and csv/ beside
    /// the results]
    #[arg(long, value_enum)]
    format: Option<Format>,
}

/// The directory a results path stands for: itself, or the folder of a results file.
fn results_dir(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf()
    }
}

/// `psbench report DIR`: the report again, from a results document.
pub fn report(a: ReportArgs) -> Result<()> {
    let res = crate::results::StudyResults::load(&a.dir)?;
    let dir = results_dir(&a.dir);
    let subject = Subject::study(res, &dir.display().to_string());
    emit(
        &subject,
        a.format,
        a.format.is_none().then_some(dir.as_path()),
    )
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The base results (a results directory or its results.json): its variants become A:NAME
    a: PathBuf,
    /// The new results: its variants become B:NAME, each compared with A's of the same name
    b: PathBuf,
    /// Print the whole report in this format [default: the headline tables in Markdown]
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Also write the report files (summary.md, report.html, bench.txt, csv/) into this directory
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `psbench compare A B`: two results documents as the variants of one study.
pub fn compare(a: CompareArgs) -> Result<()> {
    let ra = crate::results::StudyResults::load(&a.a)?;
    let rb = crate::results::StudyResults::load(&a.b)?;
    let subject = compare::merge(
        ra,
        &a.a.display().to_string(),
        rb,
        &a.b.display().to_string(),
    )?;
    if let Some(out) = &a.out {
        std::fs::create_dir_all(out)
            .map_err(|e| crate::error::usage(format!("cannot create {}: {e}", out.display())))?;
    }
    emit(&subject, a.format, a.out.as_deref())
}

/// Write every report file into `write_to` (if given), then print the report in `format`, or
/// by default its headline tables in Markdown.
fn emit(subject: &Subject, format: Option<Format>, write_to: Option<&Path>) -> Result<()> {
    if let Some(dir) = write_to {
        files::write_all(subject, dir)?;
        eprintln!(
            "report: {} (all tables: {}, charts: {})",
            dir.display(),
            files::SUMMARY,
            files::HTML
        );
    }
    match format {
        Some(f) => print!("{}", report::render(subject, f)?),
        None => print!("{}", report::markdown::headline(subject)),
    }
    Ok(())
}
