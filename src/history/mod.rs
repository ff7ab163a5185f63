//! Stage 6: the results history (docs/history.md). Every finished or merged study adds its
//! points to one SQLite database; a series is what stays the same while releases and days
//! pass, and its points are checked for change points and regressions. Reads results
//! documents only, like report/.

pub mod analysis;
pub mod commands;
pub mod count_times;
pub mod file_series;
pub mod otava;
pub mod page;
pub mod series;
pub mod store;
pub mod text;

pub use store::{Added, History};

use crate::results::StudyResults;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The file name of the history under psbench's home.
pub const FILE_NAME: &str = "history.sqlite";

/// The history at `explicit` (`--history`, `PSBENCH_HISTORY`), or under psbench's home.
pub fn path(explicit: Option<&Path>, home: &Path) -> PathBuf {
    explicit
        .map(Path::to_path_buf)
        .unwrap_or_else(|| home.join(FILE_NAME))
}

/// Add a finished document to the history at `history`: the line to print.
pub fn record(doc: &StudyResults, document: &Path, history: &Path) -> Result<String> {
    let mut h = History::open(history)?;
    // The absolute path: the history is read from anywhere.
    let document = document
        .canonicalize()
        .unwrap_or_else(|_| document.to_path_buf());
    let document = document.as_path();
    let added = h.add(doc, &document.display().to_string())?;
    Ok(if added.already {
        format!(
            "history: {} was already in {}",
            document.display(),
            history.display()
        )
    } else {
        format!(
            "history: {} point{} added to {} ({} new series)",
            added.points,
            if added.points == 1 { "" } else { "s" },
            history.display(),
            added.new_series
        )
    })
}

/// After a study or a merge, its results and report written: add it to the history. A
/// history that cannot be written (a read-only path, a full disk) is refused in one line that
/// says where the results are and how to add them later.
pub fn add_finished(doc: &StudyResults, dir: &Path, history: &Path) -> Result<()> {
    match record(doc, dir, history) {
        Ok(line) => {
            eprintln!("{line}");
            Ok(())
        }
        Err(e) if store::disk_full(&e) => Err(e.context(format!(
            "the results history {} was not updated: the disk is full; the study's results are in {}: psbench history import {} adds them",
            history.display(),
            dir.display(),
            dir.display()
        ))),
        Err(e) => Err(crate::error::usage(format!(
            "the results history {} was not updated ({}); the study's results are in {}: psbench history import {} adds them",
            history.display(),
            crate::error::one_line(&e),
            dir.display(),
            dir.display()
        ))),
    }
}
