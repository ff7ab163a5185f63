//! What two psbench processes on one home or cache share (a dataset being loaded, a release
//! being unpacked, a build) is taken under a lock file beside it: the second one waits, saying
//! for what, and then finds the first one's work done instead of failing or undoing it.

use anyhow::{Context, Result};
use std::fs::{File, TryLockError};
use std::path::Path;

/// An exclusive lock on `path` (created when missing), held until the file is dropped. When
/// another process holds it, one line to `log` says what is waited for.
pub fn exclusive(path: &Path, what: &str, log: &mut dyn std::io::Write) -> Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    match f.try_lock() {
        Ok(()) => return Ok(f),
        Err(TryLockError::WouldBlock) => {
            let _ = writeln!(
                log,
                "waiting for {what}: another psbench process holds {}",
                path.display()
            );
        }
        Err(TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("locking {}", path.display()))
        }
    }
    f.lock()
        .with_context(|| format!("locking {}", path.display()))?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_holder_waits_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let first = exclusive(&path, "x", &mut Vec::new()).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let p = path.clone();
        let waiter = std::thread::spawn(move || {
            let mut said = Vec::new();
            let held = exclusive(&p, "the dataset x", &mut said).unwrap();
            tx.send(()).unwrap();
            drop(held);
            String::from_utf8(said).unwrap()
        });
        // Still waiting while the first holds it.
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(300))
            .is_err());
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        let said = waiter.join().unwrap();
        assert!(
            said.starts_with("waiting for the dataset x: another psbench process holds"),
            "{said}"
        );
    }
}
