//! The results directory a new study writes into. A study that fails before it has measured
//! anything removes what it wrote there: a directory without a measurement would only ask to
//! be resumed (`psbench report` says so), and resuming it fails the same way again. Only what
//! this run created goes: a directory given by `--out` that already existed keeps its own
//! entries, and a parent created on the way is removed only when empty.

use crate::results::StudyResults;
use anyhow::{Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What a run created for its results.
pub struct Created {
    dir: PathBuf,
    /// The directory's entries before the run, when it existed already.
    before: Option<Vec<OsString>>,
    /// The parents created with it, innermost first.
    parents: Vec<PathBuf>,
}

impl Created {
    /// Create `dir` (and its missing parents), remembering what was there before.
    pub fn make(dir: &Path) -> Result<Created> {
        let before = match dir.is_dir() {
            true => Some(entries(dir)?),
            false => None,
        };
        let parents = dir
            .ancestors()
            .skip(1)
            .take_while(|p| !p.as_os_str().is_empty() && !p.exists())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Created {
            dir: dir.to_path_buf(),
            before,
            parents,
        })
    }

    /// After a failure: remove what this run wrote unless its results hold a measurement (a
    /// cell or a cost count, even a failed one, which `--resume` repeats). Says what it did.
    pub fn discard_unless_measured(&self) -> Result<Option<String>> {
        if measured(&self.dir) {
            return Ok(None);
        }
        match &self.before {
            None => {
                std::fs::remove_dir_all(&self.dir)
                    .with_context(|| format!("removing {}", self.dir.display()))?;
                for p in &self.parents {
                    // Another run may have written there meanwhile: only an empty one goes.
                    if std::fs::remove_dir(p).is_err() {
                        break;
                    }
                }
            }
            Some(before) => {
                for name in entries(&self.dir)? {
                    if before.contains(&name) {
                        continue;
                    }
                    let path = self.dir.join(&name);
                    let removed = match path.is_dir() {
                        true => std::fs::remove_dir_all(&path),
                        false => std::fs::remove_file(&path),
                    };
                    removed.with_context(|| format!("removing {}", path.display()))?;
                }
            }
        }
        Ok(Some(format!(
            "nothing was measured: removed what this run wrote in {}",
            self.dir.display()
        )))
    }
}

/// Whether the results document in `dir` holds a cell or a cost count.
fn measured(dir: &Path) -> bool {
    if !dir.join(crate::results::document::FILE_NAME).is_file() {
        return false;
    }
    // Written by this run: one it cannot read is kept, to be looked at.
    StudyResults::load(dir).map_or(true, |r| !r.cells.is_empty() || !r.cost.is_empty())
}

fn entries(dir: &Path) -> Result<Vec<OsString>> {
    std::fs::read_dir(dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .map(|e| Ok(e?.file_name()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("listing {}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_directory_goes_with_the_parents_it_created() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("psbench-out/study-1");
        let c = Created::make(&dir).unwrap();
        std::fs::write(dir.join("study.toml"), "x").unwrap();
        assert!(c.discard_unless_measured().unwrap().is_some());
        assert!(!t.path().join("psbench-out").exists());
        assert!(t.path().exists());
    }

    #[test]
    fn an_existing_directory_keeps_its_own_entries() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("mine.txt"), "keep").unwrap();
        let c = Created::make(t.path()).unwrap();
        std::fs::write(t.path().join("study.toml"), "x").unwrap();
        std::fs::create_dir(t.path().join("profiles")).unwrap();
        c.discard_unless_measured().unwrap();
        let left = entries(t.path()).unwrap();
        assert_eq!(left, vec![OsString::from("mine.txt")]);
    }
}
