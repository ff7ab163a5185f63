//! Whether a fetched release's server ran on this host, as psbench found when it last
//! fetched it: kept in the cache so that `fetch --list` can say so without downloading.

use super::releases::Release;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Whether a release's server ran on this host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunsHere {
    Yes,
    No(String),
    Untried,
}

/// Where the outcome of fetching each release is kept in the cache.
fn record_path(cache: &Path, r: &Release) -> PathBuf {
    cache.join("runs-here").join(r.name())
}

/// Keep what fetching and checking release `r` showed about this host.
pub fn remember(cache: &Path, r: &Release, outcome: &Result<PathBuf>) {
    let line = match outcome {
        Ok(_) => "yes".to_string(),
        Err(e) => format!("no: {}", crate::error::one_line(e)),
    };
    let path = record_path(cache, r);
    // A cache that cannot keep the line only loses it for `fetch --list`.
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(path, line);
}

/// What an earlier fetch of `r` showed.
pub fn runs_here(cache: &Path, r: &Release) -> RunsHere {
    match std::fs::read_to_string(record_path(cache, r)) {
        Ok(s) if s.trim() == "yes" => RunsHere::Yes,
        Ok(s) => RunsHere::No(s.trim().trim_start_matches("no: ").to_string()),
        Err(_) => RunsHere::Untried,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_fetch_showed_is_remembered() {
        let cache = tempfile::tempdir().unwrap();
        let r = Release::parse("mariadb-10.1.8").unwrap();
        assert_eq!(runs_here(cache.path(), &r), RunsHere::Untried);
        remember(
            cache.path(),
            &r,
            &Err(anyhow::anyhow!(
                "libssl.so.1.0.0: cannot open shared object file"
            )),
        );
        assert_eq!(
            runs_here(cache.path(), &r),
            RunsHere::No("libssl.so.1.0.0: cannot open shared object file".into())
        );
        remember(cache.path(), &r, &Ok(PathBuf::from("/x")));
        assert_eq!(runs_here(cache.path(), &r), RunsHere::Yes);
    }
}
