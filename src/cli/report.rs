//! `psbench report DIR [--format F] [--out DIR2]`: the report again, from a results document.

use crate::report::{render::publish, Format, Subject};
use crate::results::StudyResults;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A results directory (or its results.json)
    dir: PathBuf,
    /// Print the whole report in this format and write nothing [default: print the headline
    /// tables in Markdown and (re)write summary.md, summary.json, report.html, bench.txt and
    /// csv/ beside the results]
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the report files into this directory instead of beside the results (which are
    /// left as they are)
    #[arg(long, conflicts_with = "format")]
    out: Option<PathBuf>,
    #[command(flatten)]
    export: ExportArgs,
}

/// The exports `run`, `report` and `compare` share (`merge` too).
#[derive(Args, Clone, Debug, Default)]
pub struct ExportArgs {
    /// Also write the results document (results.json) to FILE
    #[arg(long, value_name = "FILE")]
    export_json: Option<PathBuf>,
    /// Also write the throughput relative to the base (csv/relative.csv) to FILE
    #[arg(long, value_name = "FILE")]
    export_csv: Option<PathBuf>,
    /// Also write the whole report in Markdown (summary.md) to FILE
    #[arg(long, value_name = "FILE")]
    export_markdown: Option<PathBuf>,
    /// Also write the results in the Bencher Metric Format (JSON: a benchmark per variant,
    /// step and thread count; throughput, server CPU and instructions with their intervals)
    #[arg(long, value_name = "FILE")]
    export_bmf: Option<PathBuf>,
}

impl ExportArgs {
    pub fn exports(&self) -> publish::Exports {
        publish::Exports {
            json: self.export_json.clone(),
            csv: self.export_csv.clone(),
            markdown: self.export_markdown.clone(),
            bmf: self.export_bmf.clone(),
        }
    }
}

pub fn command(a: ReportArgs) -> Result<()> {
    let res = StudyResults::load(&a.dir)?;
    let dir = publish::results_dir(&a.dir);
    if let Some(line) = crate::study::measures::incomplete(&res, &dir) {
        eprintln!("{line}");
    }
    let subject = Subject::study(res, &dir.display().to_string());
    let exports = a.export.exports();
    exports.check()?;
    let write_to = a.out.clone().unwrap_or(dir);
    publish::emit(
        &subject,
        a.format,
        a.format.is_none().then_some(write_to.as_path()),
    )?;
    let results = match a.dir.is_dir() {
        true => a.dir.join(crate::results::document::FILE_NAME),
        false => a.dir.clone(),
    };
    exports.write(&subject, Some(&results))
}
