//! The one writer and the one reader of psbench's JSON documents (a study's results.json,
//! a bench run's --json document): written beside the target and renamed, so that a reader
//! or a crash never sees half a document; read back only when its format and version are
//! ones this build knows.

use crate::error::usage;
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::Path;

/// Write next to the target and rename, so a reader never sees half a document.
pub fn write_atomically(path: &Path, doc: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(doc).context("serialising the result document")?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?;
    let tmp = dir.unwrap_or(Path::new(".")).join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    if let Err(e) = std::fs::write(&tmp, text + "\n") {
        // Nothing half-written is left; the document there before stays whole.
        let _ = std::fs::remove_file(&tmp);
        let full = e.kind() == std::io::ErrorKind::StorageFull;
        let e = anyhow::Error::from(e).context(format!("writing {}", path.display()));
        // A full disk is the machine's state, not a mistake in what was asked (exit 1).
        return Err(match full {
            true => e,
            false => crate::error::usage(format!("{e:#}")),
        });
    }
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
}

/// The document in `text` as JSON, when its `format` and `version` are `format` and `version`;
/// anything else is a usage error naming `origin`.
pub fn check_format(
    text: &str,
    origin: &str,
    format: &str,
    version: u32,
) -> Result<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        usage(format!(
            "{origin} is not a psbench results file (not JSON: {e})"
        ))
    })?;
    match v.get("format").and_then(|f| f.as_str()) {
        Some(f) if f == format => {}
        _ => {
            return Err(usage(format!(
                "{origin} is not a psbench results file (no \"format\": \"{format}\")"
            )))
        }
    }
    match v.get("version").and_then(|f| f.as_u64()) {
        Some(n) if n == version as u64 => {}
        other => {
            return Err(usage(format!(
            "{origin} has results format version {other:?}; this psbench reads version {version}"
        )))
        }
    }
    Ok(v)
}

/// Read `path` and check its format and version.
pub fn read(path: &Path, format: &str, version: u32) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| usage(format!("cannot read results {}: {e}", path.display())))?;
    check_format(&text, &path.display().to_string(), format, version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_leaves_only_the_target() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        write_atomically(&p, &serde_json::json!({"a": 1})).unwrap();
        let names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["a"], 1);
    }
}
