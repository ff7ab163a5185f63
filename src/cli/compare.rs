//! `psbench compare A B`: two results documents as the variants of one study.

use crate::report::{compare, render::publish, Format};
use crate::results::StudyResults;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

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
    #[command(flatten)]
    export: super::report::ExportArgs,
}

pub fn command(a: CompareArgs) -> Result<()> {
    let ra = StudyResults::load(&a.a)?;
    let rb = StudyResults::load(&a.b)?;
    let subject = compare::merge(
        ra,
        &a.a.display().to_string(),
        rb,
        &a.b.display().to_string(),
    )?;
    let exports = a.export.exports();
    exports.check()?;
    publish::emit(&subject, a.format, a.out.as_deref())?;
    exports.write(&subject, None)
}
