//! Writing and printing a report for the commands that make one: the report files beside the
//! results, the headline tables (or the whole report in one format) on standard output.

use crate::report::{render, render::files, render::markdown, Format, Subject};
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The directory a results path stands for: itself, or the folder of a results file.
pub fn results_dir(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf()
    }
}

/// After a study: its report files in `dir`, the headline tables and where everything is.
pub fn study_finished(subject: &Subject, dir: &Path) -> Result<()> {
    files::write_all(subject, dir)?;
    println!("{}", markdown::headline(subject));
    println!("results: {}", dir.join("results.json").display());
    println!(
        "report:  {} (all tables: {}, charts: {})",
        dir.display(),
        files::SUMMARY,
        files::HTML
    );
    Ok(())
}

/// Write every report file into `write_to` (if given), then print the report in `format`, or
/// by default its headline tables in Markdown.
pub fn emit(subject: &Subject, format: Option<Format>, write_to: Option<&Path>) -> Result<()> {
    if let Some(dir) = write_to {
        std::fs::create_dir_all(dir)
            .map_err(|e| crate::error::usage(format!("cannot create {}: {e}", dir.display())))?;
        files::write_all(subject, dir)?;
        eprintln!(
            "report: {} (all tables: {}, charts: {})",
            dir.display(),
            files::SUMMARY,
            files::HTML
        );
    }
    match format {
        Some(f) => print!("{}", render(subject, f)?),
        None => print!("{}", markdown::headline(subject)),
    }
    Ok(())
}

/// `--export-json`, `--export-csv` and `--export-markdown`, as hyperfine has them: the results
/// document, the relative table (csv/relative.csv) and summary.md, each to a file of the
/// user's choosing.
#[derive(Clone, Debug, Default)]
pub struct Exports {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub bmf: Option<PathBuf>,
}

impl Exports {
    fn each(&self) -> impl Iterator<Item = (&'static str, &PathBuf)> {
        [
            ("--export-json", &self.json),
            ("--export-csv", &self.csv),
            ("--export-markdown", &self.markdown),
            ("--export-bmf", &self.bmf),
        ]
        .into_iter()
        .filter_map(|(flag, p)| p.as_ref().map(|p| (flag, p)))
    }

    /// Before a study runs: every export's folder exists, so that a long run does not end in
    /// an error about a path.
    pub fn check(&self) -> Result<()> {
        for (flag, path) in self.each() {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            if path.is_dir() || dir.is_some_and(|d| !d.is_dir()) {
                return Err(cannot_write(
                    flag,
                    path,
                    "not a file in an existing directory",
                ));
            }
        }
        Ok(())
    }

    /// Write every export asked for; the results document is a copy of `results` when the
    /// subject was read from one (a comparison has none: its merged document is written).
    pub fn write(&self, s: &Subject, results: Option<&Path>) -> Result<()> {
        for (flag, path) in self.each() {
            let text = match (flag, results) {
                ("--export-json", Some(file)) => std::fs::read_to_string(file).map_err(|e| {
                    cannot_write(flag, path, &format!("reading {}: {e}", file.display()))
                })?,
                ("--export-json", None) => serde_json::to_string_pretty(&s.results)? + "\n",
                ("--export-csv", _) => crate::report::render::csv::table(
                    &crate::report::tables::measurements::relative_throughput(s),
                ),
                ("--export-bmf", _) => crate::report::render::bmf::render(s),
                _ => markdown::summary(s),
            };
            std::fs::write(path, text).map_err(|e| cannot_write(flag, path, &e.to_string()))?;
        }
        Ok(())
    }
}

fn cannot_write(flag: &str, path: &Path, why: &str) -> anyhow::Error {
    crate::error::usage(format!("{flag}: cannot write {}: {why}", path.display()))
}
