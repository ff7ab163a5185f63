//! Writing and printing a report for the commands that make one: the report files beside the
//! results, the headline tables (or the whole report in one format) on standard output.

use super::{files, markdown, render, Format, Subject};
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
