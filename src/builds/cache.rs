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
    key_of(&KeyParts {
        source_sha256: &source.sha256,
        engine: &recipe.engine,
        flags: &recipe.flags,
        options: &recipe.options,
        extra: &recipe.extra,
        compiler,
        target_cpu,
        recipe_version: recipe.recipe_version,
    })
}

/// What enters a build's key.
pub struct KeyParts<'a> {
    pub source_sha256: &'a str,
    pub engine: &'a str,
    pub flags: &'a str,
    pub options: &'a [String],
    pub extra: &'a [String],
    pub compiler: &'a str,
    pub target_cpu: Option<&'a str>,
    pub recipe_version: u32,
}

fn key_of(p: &KeyParts) -> String {
    let parts = serde_json::json!({
        "source_sha256": p.source_sha256,
        "engine": p.engine,
        "flags": p.flags,
        "options": p.options,
        "extra": p.extra,
        "compiler": p.compiler,
        "target_cpu": p.target_cpu,
        "recipe_version": p.recipe_version,
    });
    format!("{:x}", Sha256::digest(parts.to_string().as_bytes()))
}

impl BuildRecord {
    /// The key this record's own fields give: a record whose key is another was edited (or
    /// written by another recipe of the key).
    pub fn key_of_fields(&self) -> String {
        key_of(&KeyParts {
            source_sha256: &self.source_sha256,
            engine: &self.engine,
            flags: &self.flags,
            options: &self.options,
            extra: &self.extra,
            compiler: &self.compiler,
            target_cpu: self.target_cpu.as_deref(),
            recipe_version: self.recipe_version,
        })
    }

    /// The directory name this record's fields give (`mysql-9.7.2-release-5d8b5e6d`).
    pub fn name_of_fields(&self) -> String {
        format!(
            "{}-{}-{}-{}",
            self.engine,
            self.release,
            self.flags,
            self.key.get(..8).unwrap_or(&self.key)
        )
    }
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

/// `psbench build --list`: one line per build, each with its compiler beside `host_compiler`
/// (this host's) and, when imported, the archive it came from.
pub fn listing(dir: &Path, host_compiler: &str) -> String {
    let builds = list(dir);
    if builds.is_empty() {
        return format!("no builds in {}\n", dir.display());
    }
    let mut out = format!(
        "builds in {} (this host's compiler: {host_compiler}):\n",
        dir.display()
    );
    for (path, r) in builds {
        let compiler = match r.compiler == host_compiler {
            true => "compiler this host's".to_string(),
            false => format!("compiler {} (not this host's)", r.compiler),
        };
        let imported = imported_from(&path)
            .map(|a| format!("  imported from {a}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{}  {} {}  flags {}  {:.0} MB  built in {:.0} s on {}  source {}  {compiler}{imported}\n",
            r.name,
            r.engine,
            r.release,
            r.flags,
            r.size_bytes as f64 / 1e6,
            r.build_seconds,
            r.host,
            r.source
        ));
    }
    out
}

/// A file beside `build.json` saying where an imported build came from; not exported.
pub const IMPORTED: &str = "imported.json";

/// The archive a build in `dir` was imported from, when it was.
pub fn imported_from(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(IMPORTED)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["archive"].as_str().map(str::to_string)
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
    let (path, r) = named(dir, name)?;
    std::fs::remove_dir_all(&path).with_context(|| format!("removing {}", path.display()))?;
    Ok(r)
}

/// The build named `name` (its directory name, or a unique prefix of its key).
pub fn named(dir: &Path, name: &str) -> Result<(PathBuf, BuildRecord)> {
    let all = list(dir);
    let hits: Vec<&(PathBuf, BuildRecord)> = all
        .iter()
        .filter(|(_, r)| r.name == name || (name.len() >= 6 && r.key.starts_with(name)))
        .collect();
    match hits.as_slice() {
        [hit] => Ok((*hit).clone()),
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
