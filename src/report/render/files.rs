//! The report files of a results directory (summary.md, summary.json, report.html, bench.txt,
//! csv/*.csv, and profiles/summary.md for a profiled study), written from the one list of
//! outputs.

use super::csv;
use crate::report::findings::{frames_that_grew, glance};
use crate::report::tables::{provenance, sections};
use crate::report::Subject;
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

/// The frames that grew, beside the flame graphs of a profiled study (a comparison of two
/// documents has none).
pub fn profiles_summary(s: &Subject) -> Option<(PathBuf, String)> {
    if s.sources.len() != 1 {
        return None;
    }
    let section = frames_that_grew::section(&s.results)?;
    Some((Path::new(PROFILES_DIR).join(SUMMARY), section))
}

/// Write every report file into `dir`; returns the paths written.
pub fn write_all(s: &Subject, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for output in &super::OUTPUTS {
        for (name, text) in (output.files)(s)? {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
            written.push(path);
        }
    }
    Ok(written)
}
