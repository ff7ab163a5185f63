//! The report files of a results directory: summary.md, summary.json, report.html, bench.txt,
//! csv/*.csv, and profiles/summary.md (the frames that grew) for a profiled study.

use super::{
    csv, frames_that_grew, glance, gobench, html, markdown, provenance, sections, summary_json,
    Subject,
};
use crate::results::document::PROFILES_DIR;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

pub const SUMMARY: &str = "summary.md";
pub const HTML: &str = "report.html";
pub const GOBENCH: &str = "bench.txt";
pub const CSV_DIR: &str = "csv";

/// Every table as (file name, CSV text).
pub fn csv_tables(s: &Subject) -> Vec<(String, String)> {
    std::iter::once(glance::table(s))
        .chain(sections::measurements(s))
        .chain(provenance::all(s))
        .map(|t| (format!("{}.csv", t.id), csv::table(&t)))
        .collect()
}

fn write(path: PathBuf, text: &str) -> Result<PathBuf> {
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// Write every report file into `dir`; returns the paths written.
pub fn write_all(s: &Subject, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir.join(CSV_DIR))
        .with_context(|| format!("creating {}", dir.join(CSV_DIR).display()))?;
    let mut written = vec![
        write(dir.join(SUMMARY), &markdown::summary(s))?,
        write(dir.join(summary_json::FILE), &summary_json::render(s)?)?,
        write(dir.join(HTML), &html::render(s)?)?,
        write(dir.join(GOBENCH), &gobench::render(s))?,
    ];
    for (name, text) in csv_tables(s) {
        written.push(write(dir.join(CSV_DIR).join(name), &text)?);
    }
    // Beside the flame graphs of a profiled study.
    if let (1, Some(section)) = (s.sources.len(), frames_that_grew::section(&s.results)) {
        let profiles = dir.join(PROFILES_DIR);
        std::fs::create_dir_all(&profiles)
            .with_context(|| format!("creating {}", profiles.display()))?;
        written.push(write(profiles.join(SUMMARY), &section)?);
    }
    Ok(written)
}
