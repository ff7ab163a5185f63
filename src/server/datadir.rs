//! Datadirs: initialised once per (binary, init options) and copied for every sandbox,
//! so that each sandbox starts from the same state and loading never dominates study time.

use super::account::Account;
use super::binaries::Binaries;
use super::options::ServerOption;
use crate::error::usage;
use anyhow::{bail, Context, Result};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How an engine makes and recognises a fresh datadir (engines/ decides; this module caches
/// and copies).
pub trait Initialiser {
    /// Whether `data` holds an initialised datadir of this engine.
    fn is_initialised(&self, data: &Path) -> bool;
    /// Create a datadir at `data` with the tree's own initialiser, as `server` when given.
    fn initialise(
        &self,
        bin: &Binaries,
        init_opts: &[ServerOption],
        data: &Path,
        server: Option<&Account>,
    ) -> Result<()>;
}

/// A freshly initialised datadir for these binaries and options, from the cache under
/// `cache_root` (created on first use); `label` names it there (`MariaDB 10.11.19`).
pub fn pristine(
    init: &dyn Initialiser,
    bin: &Binaries,
    label: &str,
    init_opts: &[ServerOption],
    cache_root: &Path,
    server: Option<&Account>,
) -> Result<PathBuf> {
    let mut h = DefaultHasher::new();
    bin.server.hash(&mut h);
    bin.version.hash(&mut h);
    if let Ok(m) = std::fs::metadata(&bin.server) {
        m.len().hash(&mut h);
        m.modified().ok().hash(&mut h);
    }
    for o in init_opts {
        o.display().hash(&mut h);
    }
    let label: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let dir = cache_root.join(format!("{label}-{:016x}", h.finish()));
    let data = dir.join("data");
    if init.is_initialised(&data) {
        return Ok(data);
    }
    std::fs::create_dir_all(cache_root)
        .with_context(|| format!("creating {}", cache_root.display()))?;
    let tmp = cache_root.join(format!(".tmp-{}-{:016x}", std::process::id(), h.finish()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    let result = init.initialise(bin, init_opts, &tmp.join("data"), server);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    // Another process may have won the race; either copy is as good.
    if std::fs::rename(&tmp, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(data)
}

/// Bytes used by the files under `dir`.
pub fn size_of(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                match e.metadata() {
                    Ok(m) if m.is_dir() => stack.push(e.path()),
                    Ok(m) => total += m.len(),
                    Err(_) => {}
                }
            }
        }
    }
    total
}

/// Free bytes for an unprivileged writer on the filesystem holding `path` (or its nearest parent).
pub fn free_space(path: &Path) -> Result<u64> {
    let mut p = path.to_path_buf();
    while !p.exists() {
        if !p.pop() {
            break;
        }
    }
    let st = nix::sys::statvfs::statvfs(&p)
        .with_context(|| format!("checking free space at {}", p.display()))?;
    Ok(st.blocks_available() as u64 * st.fragment_size() as u64)
}

/// Copy a datadir (reflink where the filesystem allows, a plain copy otherwise), after
/// checking that the destination has room for it.
pub fn copy(src: &Path, dst: &Path) -> Result<()> {
    let need = size_of(src);
    let free = free_space(dst)?;
    // Keep a margin: the server writes more than it copied (logs, temp files).
    let margin = 64 << 20;
    if need + margin > free {
        return Err(usage(format!(
            "not enough disk space for a datadir copy at {}: need {} MiB, {} MiB free",
            dst.display(),
            (need + margin) >> 20,
            free >> 20
        )));
    }
    if let Some(parent) = dst.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let out = Command::new("cp")
        .arg("-a")
        .arg("--reflink=auto")
        .arg(src)
        .arg(dst)
        .output()
        .context("running cp")?;
    if !out.status.success() {
        let why = match out.status.signal() {
            Some(sig) => format!("cp was killed by signal {sig}"),
            None => String::from_utf8_lossy(&out.stderr).trim().to_string(),
        };
        bail!(
            "copying datadir {} to {} failed: {why}",
            src.display(),
            dst.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_and_measures() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(src.join("sub")).unwrap();
        std::fs::write(src.join("sub/f"), vec![7u8; 4096]).unwrap();
        assert_eq!(size_of(&src), 4096);
        let dst = d.path().join("a/b/dst");
        copy(&src, &dst).unwrap();
        assert_eq!(std::fs::read(dst.join("sub/f")).unwrap().len(), 4096);
        assert!(free_space(&d.path().join("nonexistent/x")).unwrap() > 0);
    }
}
