//! Where a build's source comes from and how it is pinned: a Debian source package (its
//! version and the SHA-256 of its .dsc, which lists the checksums of every tarball it unpacks),
//! a local tree (a git checkout by its commit, plus a digest of any uncommitted change; any
//! other tree by a digest of its files) or a local tarball (its SHA-256).

use super::builder::Builder;
use super::debian::Debian;
use crate::error::usage;
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A source as the user names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceSpec {
    /// `debian:mariadb`, `debian:postgresql-15=15.18-0+deb12u1`.
    Debian {
        package: String,
        version: Option<String>,
    },
    /// A source tree on disk.
    Tree(PathBuf),
    /// A `.tar.gz` or `.tar.xz` on disk.
    Tarball(PathBuf),
}

impl SourceSpec {
    pub fn parse(text: &str) -> Result<Self> {
        if let Some(rest) = text.strip_prefix("debian:") {
            let (package, version) = match rest.split_once('=') {
                Some((p, v)) => (p, Some(v.to_string())),
                None => (rest, None),
            };
            let valid = !package.is_empty()
                && package
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+-.".contains(c));
            if !valid || version.as_deref() == Some("") {
                return Err(usage(format!(
                    "source '{text}': a Debian source is debian:PACKAGE or debian:PACKAGE=VERSION (e.g. debian:mariadb, debian:postgresql-15)"
                )));
            }
            return Ok(SourceSpec::Debian {
                package: package.to_string(),
                version,
            });
        }
        let path = PathBuf::from(text);
        if path.is_dir() {
            return Ok(SourceSpec::Tree(path));
        }
        if path.is_file() {
            if tarball_kind(&path).is_some() {
                return Ok(SourceSpec::Tarball(path));
            }
            return Err(usage(format!(
                "source '{text}' is a file but not a .tar.gz, .tgz or .tar.xz (unpack it and pass the directory)"
            )));
        }
        Err(usage(format!(
            "source '{text}' is neither debian:PACKAGE nor an existing directory or tarball"
        )))
    }

    /// The package name of a Debian source, the file name of a local one.
    pub fn name(&self) -> String {
        match self {
            SourceSpec::Debian { package, .. } => package.clone(),
            SourceSpec::Tree(p) | SourceSpec::Tarball(p) => p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_else(|| p.display().to_string()),
        }
    }
}

/// A source ready to build: its tree on disk and how it is pinned.
#[derive(Clone, Debug)]
pub struct Source {
    /// How the user named it, with a Debian version filled in: `debian:mariadb=1:10.11.19-0+deb12u1`.
    pub spec: String,
    pub dir: PathBuf,
    /// Debian's version, a git commit, or `unversioned`.
    pub version: String,
    pub sha256: String,
}

/// Fetch or unpack `spec` into psbench's source cache under `cache` (a local tree is used in
/// place). `installed` gives, for a Debian source package, the version of it the system has
/// installed: the default, so that a build compares like for like with the system's binary.
pub fn prepare(
    spec: &SourceSpec,
    cache: &Path,
    builder: &Builder,
    installed: impl Fn(&str) -> Option<String>,
    log: &mut dyn std::io::Write,
) -> Result<Source> {
    match spec {
        SourceSpec::Debian { package, version } => {
            let apt = Debian::new(cache, builder);
            let sources = cache.join("sources");
            // Unpinned: the version the system has installed, so that a build compares like
            // for like with the system's binary; else the newest the mirror serves.
            let (version, dir, sha256) = match version.clone().or_else(|| installed(package)) {
                Some(v) => {
                    let (dir, sha) = apt.source(package, &v, &sources, log)?;
                    (v, dir, sha)
                }
                None => apt.newest_served(package, &sources, log)?,
            };
            Ok(Source {
                spec: format!("debian:{package}={version}"),
                dir,
                version,
                sha256,
            })
        }
        SourceSpec::Tree(dir) => {
            let dir = dir
                .canonicalize()
                .with_context(|| format!("resolving {}", dir.display()))?;
            let (version, sha256) = tree_pin(&dir)?;
            Ok(Source {
                spec: dir.display().to_string(),
                dir,
                version,
                sha256,
            })
        }
        SourceSpec::Tarball(file) => {
            let sha256 = crate::server::fetch::sha256(file)?;
            let dest = cache
                .join("sources")
                .join(format!("tarball-{}", &sha256[..16]));
            if !dest.join(".unpacked").is_file() {
                writeln!(log, "unpacking {} into {}", file.display(), dest.display())?;
                unpack(file, &dest)?;
                builder.own(&dest)?;
            }
            Ok(Source {
                spec: file.display().to_string(),
                dir: single_child(&dest),
                version: "unversioned".into(),
                sha256,
            })
        }
    }
}

/// A git checkout: its commit, and a digest of `git diff HEAD` when it has uncommitted
/// changes. Any other tree: a digest of every file's path and content.
fn tree_pin(dir: &Path) -> Result<(String, String)> {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| o.stdout)
    };
    if let Some(head) = git(&["rev-parse", "HEAD"]) {
        let head = String::from_utf8_lossy(&head).trim().to_string();
        let diff = git(&["diff", "HEAD"]).unwrap_or_default();
        let mut h = Sha256::new();
        h.update(head.as_bytes());
        h.update(&diff);
        let version = if diff.is_empty() {
            format!("git {head}")
        } else {
            format!("git {head} with uncommitted changes")
        };
        return Ok((version, format!("{:x}", h.finalize())));
    }
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files)?;
    files.sort();
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    for rel in &files {
        h.update(rel.to_string_lossy().as_bytes());
        h.update([0]);
        let mut f = std::fs::File::open(dir.join(rel))
            .with_context(|| format!("reading {}", dir.join(rel).display()))?;
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
    }
    Ok(("unversioned".into(), format!("{:x}", h.finalize())))
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for e in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            collect_files(root, &e.path(), out)?;
        } else if t.is_file() {
            out.push(
                e.path()
                    .strip_prefix(root)
                    .unwrap_or(&e.path())
                    .to_path_buf(),
            );
        }
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Compression {
    Gzip,
    Xz,
}

fn tarball_kind(path: &Path) -> Option<Compression> {
    let name = path.file_name()?.to_str()?;
    if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Some(Compression::Gzip)
    } else if name.ends_with(".tar.xz") || name.ends_with(".txz") {
        Some(Compression::Xz)
    } else {
        None
    }
}

/// Unpack a tarball into `dest` through a temporary directory, so that an interrupted unpack
/// leaves nothing that looks finished.
fn unpack(file: &Path, dest: &Path) -> Result<()> {
    let tmp = dest.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let f = std::fs::File::open(file).with_context(|| format!("opening {}", file.display()))?;
    let reader: Box<dyn Read> = match tarball_kind(file) {
        Some(Compression::Xz) => Box::new(liblzma::read::XzDecoder::new(f)),
        _ => Box::new(flate2::read::GzDecoder::new(f)),
    };
    tar::Archive::new(reader)
        .unpack(&tmp)
        .with_context(|| format!("unpacking {} into {}", file.display(), tmp.display()))?;
    std::fs::write(tmp.join(".unpacked"), file.display().to_string())?;
    let _ = std::fs::remove_dir_all(dest);
    std::fs::rename(&tmp, dest)
        .with_context(|| format!("moving {} to {}", tmp.display(), dest.display()))
}

/// A tarball's tree: its one top directory, or the unpack directory itself.
fn single_child(dest: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(dest)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    match dirs.as_slice() {
        [one] => one.clone(),
        _ => dest.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_bad_ones_are_usage_errors() {
        assert_eq!(
            SourceSpec::parse("debian:postgresql-15=15.18-0+deb12u1").unwrap(),
            SourceSpec::Debian {
                package: "postgresql-15".into(),
                version: Some("15.18-0+deb12u1".into())
            }
        );
        assert_eq!(
            SourceSpec::parse("debian:mariadb").unwrap(),
            SourceSpec::Debian {
                package: "mariadb".into(),
                version: None
            }
        );
        for bad in [
            "debian:",
            "debian:Maria DB",
            "debian:mariadb=",
            "/no/such/dir",
        ] {
            let e = SourceSpec::parse(bad).unwrap_err();
            assert!(crate::error::is_usage(&e), "{bad}: {e:#}");
        }
    }

    #[test]
    fn a_plain_tree_is_pinned_by_its_content() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("src")).unwrap();
        std::fs::write(d.path().join("src/a.c"), "int a;").unwrap();
        let (v, one) = tree_pin(d.path()).unwrap();
        assert_eq!(v, "unversioned");
        std::fs::write(d.path().join("src/a.c"), "int b;").unwrap();
        let (_, two) = tree_pin(d.path()).unwrap();
        assert_ne!(one, two);
    }
}
