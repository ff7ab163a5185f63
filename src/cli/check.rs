//! `psbench check DIR`: a study's cost-mode counts, each variant against its base, as a
//! pull request's gate: exit 1 when a step's instructions rose beyond the threshold.

use crate::error::usage;
use crate::report::{gate, subject::Subject};
use crate::results::StudyResults;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The results directory (or its results.json) of a study with cost-mode counts
    dir: PathBuf,
    /// Smallest rise called, in percent
    #[arg(long, value_name = "PCT", default_value_t = 1.0)]
    threshold: f64,
}

pub fn command(a: CheckArgs) -> Result<()> {
    if !(a.threshold > 0.0 && a.threshold < 100.0) {
        return Err(usage(format!(
            "--threshold is a percentage above 0 and below 100, not {}",
            a.threshold
        )));
    }
    let results = StudyResults::load(&a.dir)?;
    if results.cost.is_empty() {
        return Err(usage(format!(
            "{} holds no cost-mode counts to check: run the study with mode = \"cost\" (or --cost)",
            a.dir.display()
        )));
    }
    let subject = Subject::study(results, &a.dir.display().to_string());
    let g = gate::check(&subject, a.threshold / 100.0);
    if g.checked == 0 {
        return Err(usage(format!(
            "{} has no variant with a base to check against (a gate compares two variants or more)",
            a.dir.display()
        )));
    }
    for l in &g.lines {
        println!("{l}");
    }
    println!(
        "{} step(s) checked against the base in {}: {} regression(s), {} improvement(s), {} not checked",
        g.checked,
        a.dir.display(),
        g.regressions,
        g.improvements,
        g.unmeasured
    );
    // The line above is the verdict; exit 1 says it failed without saying it twice.
    if g.regressions > 0 || g.unmeasured > 0 {
        return Err(crate::error::AlreadySaid.into());
    }
    Ok(())
}
