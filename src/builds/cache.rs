//! The build cache: one directory per build, `ENGINE-RELEASE-FLAGS-KEY/` with the installed
//! `tree/`, its `build.json` record and `build.log`, under `$PSBENCH_BUILDS` or the cache's
//! `builds/`. The key is a digest of everything that makes the binary, so a second request
//! for the same build finds it and two different builds never share a directory.

use super::recipe::Recipe;
use super::source::Source;
use crate::error::usage;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Where builds are kept.
pub fn builds_dir() -> PathBuf {
    match std::env::var_os("PSBENCH_BUILDS").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => crate::server::fetch::cache_dir().join("builds"),
    }
}

/// What a build was made from and with, and what it made: `build.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildRecord {
    /// The directory's name: `postgres-15.18-release-3f2a9c1b`.
    pub name: String,
    pub key: String,
    pub engine: String,
    pub release: String,
    pub flags: String,
    pub options: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<String>,
    /// `debian:postgresql-15=15.18-0+deb12u1`, or the tree's or tarball's path.
    pub source: String,
    pub source_version: String,
    pub source_sha256: String,
    pub compiler: String,
    /// The CPU a native build was made for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_cpu: Option<String>,
    pub recipe_version: u32,
    pub host: String,
    pub built_unix: u64,
    pub build_seconds: f64,
    /// Each recipe step's seconds (configure, compile, install), for the next build's ETA.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_seconds: Vec<f64>,
    pub size_bytes: u64,
    /// The server program relative to the tree, and its SHA-256: builds of the same key on
    /// two hosts can differ here (paths and timestamps in the binary).
    pub server: String,
    pub binary_sha256: String,
}

impl BuildRecord {
    /// The installed tree of the build recorded in directory `dir`.
    pub fn tree(dir: &Path) -> PathBuf {
        dir.join("tree")
    }
}

/// The digest of what makes a build: source, engine, flag set and options, the user's
/// options, compilers, the CPU of a native build, and the recipe's version.
pub fn key(recipe: &Recipe, source: &Source, compiler: &str, target_cpu: Option<&str>) -> String {
    let parts = serde_json::json!({
        "source_sha256": source.sha256,
        "engine": recipe.engine,
        "flags": recipe.flags,
        "options": recipe.options,
        "extra": recipe.extra,
        "compiler": compiler,
        "target_cpu": target_cpu,
        "recipe_version": recipe.recipe_version,
    });
    format!("{:x}", Sha256::digest(parts.to_string().as_bytes()))
}

/// The directory name of a build.
pub fn entry_name(recipe: &Recipe, key: &str) -> String {
    format!(
        "{}-{}-{}-{}",
        recipe.engine,
        recipe.release,
        recipe.flags,
        &key[..8]
    )
}

/// Every finished build under `dir`, by name.
pub fn list(dir: &Path) -> Vec<(PathBuf, BuildRecord)> {
    let mut out: Vec<(PathBuf, BuildRecord)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| read(&e.path()).map(|r| (e.path(), r)))
        .collect();
    out.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    out
}

/// `psbench build --list`: one line per build.
pub fn listing(dir: &Path) -> String {
    let builds = list(dir);
    if builds.is_empty() {
        return format!("no builds in {}\n", dir.display());
    }
    let mut out = format!("builds in {}:\n", dir.display());
    for (_, r) in builds {
        out.push_str(&format!(
            "{}  {} {}  flags {}  {:.0} MB  built in {:.0} s  source {}\n",
            r.name,
            r.engine,
            r.release,
            r.flags,
            r.size_bytes as f64 / 1e6,
            r.build_seconds,
            r.source
        ));
    }
    out
}

/// The record in build directory `dir`, when it holds a finished build.
pub fn read(dir: &Path) -> Option<BuildRecord> {
    let text = std::fs::read_to_string(dir.join("build.json")).ok()?;
    let r: BuildRecord = serde_json::from_str(&text).ok()?;
    BuildRecord::tree(dir)
        .join(&r.server)
        .is_file()
        .then_some(r)
}

/// The finished build with this key.
pub fn find(dir: &Path, key: &str) -> Option<(PathBuf, BuildRecord)> {
    list(dir).into_iter().find(|(_, r)| r.key == key)
}

/// The build a server program belongs to, when it lies in a build's tree.
pub fn of_server(server: &Path) -> Option<BuildRecord> {
    server
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "tree"))
        .and_then(Path::parent)
        .and_then(read)
}

/// Remove the build named `name` (its directory name, or a unique prefix of its key).
pub fn remove(dir: &Path, name: &str) -> Result<BuildRecord> {
    let all = list(dir);
    let hits: Vec<&(PathBuf, BuildRecord)> = all
        .iter()
        .filter(|(_, r)| r.name == name || (name.len() >= 6 && r.key.starts_with(name)))
        .collect();
    match hits.as_slice() {
        [(path, r)] => {
            std::fs::remove_dir_all(path)
                .with_context(|| format!("removing {}", path.display()))?;
            Ok(r.clone())
        }
        [] => Err(usage(format!(
            "no build named '{name}' in {} (psbench build --list shows them)",
            dir.display()
        ))),
        _ => Err(usage(format!(
            "'{name}' names {} builds: give more of its name",
            hits.len()
        ))),
    }
}

/// Bytes under `path`.
pub fn size_of(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if meta.is_dir() {
        std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| size_of(&e.path()))
            .sum()
    } else {
        meta.len()
    }
}
