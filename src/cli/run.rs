use crate::report::markdown;
use crate::server::Home;
use crate::study::{builtin, file, overrides::Overrides, runner};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

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
    let md = markdown::summary(&res);
    std::fs::write(out_dir.join("summary.md"), &md)?;
    println!("{md}");
    println!("results: {}", out_dir.join("results.json").display());
    if res.cells.iter().any(|c| !c.ok) || res.cost.iter().any(|c| !c.ok) {
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

/// `psbench report DIR`: the tables again, from a results document.
pub fn report(dir: &std::path::Path) -> Result<()> {
    let res = crate::results::StudyResults::load(dir)?;
    println!("{}", markdown::summary(&res));
    Ok(())
}
