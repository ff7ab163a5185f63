//! `psbench report DIR [--format F]`: the report again, from a results document.

use crate::report::{publish, Format, Subject};
use crate::results::StudyResults;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

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

pub fn command(a: ReportArgs) -> Result<()> {
    let res = StudyResults::load(&a.dir)?;
    let dir = publish::results_dir(&a.dir);
    let subject = Subject::study(res, &dir.display().to_string());
    publish::emit(
        &subject,
        a.format,
        a.format.is_none().then_some(dir.as_path()),
    )
}
