//! The files a study names beside itself (its scripts, its dataset's SQL and load script, its
//! variants' my.cnf or postgresql.conf):
//! made absolute from the study file's directory when it is read, and their SHA-256
//! recorded, so that results say exactly what ran and the prepared data is keyed by it.

use super::file_keys::Place;
use crate::results::study::Study;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Where a study's relative paths start: the study file's directory (the working
/// directory for a built-in study).
fn base_dir(origin: &str) -> PathBuf {
    if origin.starts_with("built-in:") {
        return PathBuf::new();
    }
    Path::new(origin)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// `path` from `dir`, absolute where it can be.
fn absolute(dir: &Path, path: &str) -> String {
    let joined = dir.join(path);
    std::path::absolute(&joined)
        .unwrap_or(joined)
        .to_string_lossy()
        .into_owned()
}

/// The SHA-256 of a file, or why it cannot be read.
pub fn sha256_of(path: &str) -> Result<String, String> {
    std::fs::read(path)
        .map(|bytes| format!("{:x}", Sha256::digest(bytes)))
        .map_err(|e| format!("cannot read {path}: {e}"))
}

/// Make `study`'s input paths absolute and record their hashes; a dataset file that cannot
/// be read is a mistake (a script is the script kind's to check).
pub fn resolve(study: &mut Study, origin: &str) -> Vec<(Place, String)> {
    let dir = base_dir(origin);
    let mut mistakes = Vec::new();
    for w in &mut study.workloads {
        if let Some(log) = w.log.as_mut() {
            *log = absolute(&dir, log);
            w.log_sha256 = sha256_of(log).ok();
        }
        let Some(scripts) = w.scripts.as_mut() else {
            continue;
        };
        w.script_sha256.clear();
        for s in scripts.iter_mut() {
            // FILE@WEIGHT: the weight stays as written.
            let (file, weight) = match s.rsplit_once('@') {
                Some((f, wt)) if wt.chars().all(|c| c.is_ascii_digit()) => (f, Some(wt)),
                _ => (s.as_str(), None),
            };
            let full = absolute(&dir, file);
            if let Ok(h) = sha256_of(&full) {
                w.script_sha256.push(h);
            }
            *s = match weight {
                Some(wt) => format!("{full}@{wt}"),
                None => full,
            };
        }
    }
    for v in &mut study.variants {
        for f in [v.defaults_file.as_mut(), v.config_file.as_mut()]
            .into_iter()
            .flatten()
        {
            *f = PathBuf::from(absolute(&dir, &f.to_string_lossy()));
        }
    }
    let d = &mut study.dataset;
    d.sha256.clear();
    for f in d.sql.iter_mut() {
        *f = absolute(&dir, f);
    }
    if let Some(load) = d.load.as_mut() {
        load.script = absolute(&dir, &load.script);
    }
    let files: Vec<String> = d
        .sql
        .iter()
        .cloned()
        .chain(d.load.as_ref().map(|l| l.script.clone()))
        .collect();
    for f in files {
        match sha256_of(&f) {
            Ok(h) => d.sha256.push(h),
            Err(e) => mistakes.push((Place::Key("dataset"), format!("dataset: {e}"))),
        }
    }
    mistakes
}
