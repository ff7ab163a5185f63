//! The report's output formats, in one list ([`OUTPUTS`]): what `psbench report --format`
//! prints and what a results directory holds are the same renderings.

pub mod bmf;
pub mod csv;
pub mod files;
pub mod gobench;
pub mod html;
pub mod markdown;
pub mod publish;
pub mod summary_json;

use super::Subject;
use anyhow::Result;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Markdown tables (summary.md)
    Md,
    /// One self-contained HTML page with charts (report.html)
    Html,
    /// Every table as CSV, each after a "# NAME.csv" line (csv/NAME.csv)
    Csv,
    /// Go benchmark format for benchstat (bench.txt)
    Gobench,
}

/// One output of a report: the `--format` that prints it (summary.json and the profiles'
/// summary have none), and its files, as paths relative to the results directory with their
/// text.
pub struct Output {
    pub format: Option<Format>,
    pub files: fn(&Subject) -> Result<Files>,
}

/// Files as paths relative to the results directory, with their text.
pub type Files = Vec<(PathBuf, String)>;

fn one(name: &str, text: String) -> Result<Files> {
    Ok(vec![(PathBuf::from(name), text)])
}

/// Every output, in the order a results directory is written.
pub const OUTPUTS: [Output; 6] = [
    Output {
        format: Some(Format::Md),
        files: |s| one(files::SUMMARY, markdown::summary(s)),
    },
    Output {
        format: None,
        files: |s| one(summary_json::FILE, summary_json::render(s)?),
    },
    Output {
        format: Some(Format::Html),
        files: |s| one(files::HTML, html::render(s)?),
    },
    Output {
        format: Some(Format::Gobench),
        files: |s| one(files::GOBENCH, gobench::render(s)),
    },
    Output {
        format: Some(Format::Csv),
        files: |s| {
            Ok(files::csv_tables(s)
                .into_iter()
                .map(|(name, text)| (PathBuf::from(files::CSV_DIR).join(name), text))
                .collect())
        },
    },
    Output {
        format: None,
        files: |s| Ok(files::profiles_summary(s).into_iter().collect()),
    },
];

/// The report in one format, as text: its one file, or each of its files after a "# NAME"
/// line.
pub fn render(s: &Subject, format: Format) -> Result<String> {
    let Some(output) = OUTPUTS.iter().find(|o| o.format == Some(format)) else {
        anyhow::bail!("no output renders {format:?}");
    };
    let files = (output.files)(s)?;
    Ok(match files.as_slice() {
        [(_, text)] => text.clone(),
        many => many
            .iter()
            .map(|(path, text)| {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                format!("# {name}\n{text}")
            })
            .collect::<Vec<_>>()
            .join("\n"),
    })
}
