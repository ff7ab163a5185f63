//! Debian's source packages through apt's own source support, with psbench's own sources
//! list, lists and archive directories in its cache: the system's apt configuration is never
//! read for sources nor changed. The mirrors are the ones the system already uses (its
//! sources' URIs), the suites those whose releases psbench builds: bookworm (MariaDB 10.11,
//! PostgreSQL 15), bullseye (MariaDB 10.5, PostgreSQL 13) and trixie (MariaDB 11.8,
//! PostgreSQL 17), each with its security updates.

use super::builder::Builder;
use crate::error::usage;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

const SUITES: [&str; 3] = ["bookworm", "bullseye", "trixie"];
/// Lists older than this are fetched again before a version is chosen.
const LISTS_FRESH_FOR: Duration = Duration::from_secs(24 * 3600);

/// psbench's apt state under one directory, run as the builder.
pub struct Apt<'a> {
    root: PathBuf,
    builder: &'a Builder,
}

impl<'a> Apt<'a> {
    pub fn new(root: &Path, builder: &'a Builder) -> Self {
        Apt {
            root: root.to_path_buf(),
            builder,
        }
    }

    fn command(&self, program: &str, dir: &Path) -> Command {
        let mut cmd = self.builder.command(program, dir, &self.root);
        cmd.args(self.options());
        cmd
    }

    fn options(&self) -> Vec<String> {
        let r = self.root.display();
        vec![
            format!("-oDir::Etc::SourceList={r}/sources.list"),
            format!("-oDir::Etc::SourceParts={r}/sources.list.d"),
            format!("-oDir::State::Lists={r}/lists"),
            format!("-oDir::Cache={r}/cache"),
            // Its own lists need no lock on the system's.
            "-oDebug::NoLocking=1".into(),
        ]
    }

    /// Write the sources list and fetch the lists when they are missing or a day old.
    fn update(&self, log: &mut dyn std::io::Write) -> Result<()> {
        for d in ["lists/partial", "cache/archives/partial", "sources.list.d"] {
            let d = self.root.join(d);
            std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
        }
        self.builder.own(&self.root)?;
        let list = self.root.join("sources.list");
        let text = sources_list(&system_mirrors());
        let same = std::fs::read_to_string(&list).is_ok_and(|t| t == text);
        let stamp = self.root.join("lists/.updated");
        let fresh = same
            && std::fs::metadata(&stamp)
                .and_then(|m| m.modified())
                .is_ok_and(|t| {
                    SystemTime::now().duration_since(t).unwrap_or_default() < LISTS_FRESH_FOR
                });
        if fresh {
            return Ok(());
        }
        std::fs::write(&list, &text).with_context(|| format!("writing {}", list.display()))?;
        writeln!(
            log,
            "apt: fetching the source lists into {}",
            self.root.display()
        )?;
        let out = self
            .command("apt-get", &self.root)
            .args(["-q", "update"])
            .output()
            .context("running apt-get update (is apt installed?)")?;
        if !out.status.success() {
            bail!(
                "apt-get update with psbench's sources list failed: {}",
                last_line(&out.stderr)
            );
        }
        std::fs::write(&stamp, "")?;
        Ok(())
    }

    /// Every version of source package `package` the suites offer, newest first.
    pub fn versions(&self, package: &str, log: &mut dyn std::io::Write) -> Result<Vec<String>> {
        self.update(log)?;
        let out = self
            .command("apt-cache", &self.root)
            .args(["showsrc", "--only-source", package])
            .output()
            .context("running apt-cache showsrc")?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut versions: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("Version: "))
            .map(|v| v.trim().to_string())
            .collect();
        versions.sort_by(|a, b| compare_versions(b, a));
        versions.dedup();
        Ok(versions)
    }

    /// The newest version of `package`; an unknown package is the user's mistake.
    pub fn newest(&self, package: &str, log: &mut dyn std::io::Write) -> Result<String> {
        self.versions(package, log)?.into_iter().next().ok_or_else(|| {
            usage(format!(
                "Debian has no source package '{package}' in {} (e.g. mariadb, mariadb-10.5, postgresql-15, postgresql-13, postgresql-17)",
                SUITES.join(", ")
            ))
        })
    }

    /// Download and unpack `package` at `version` (Debian's patches applied) under `sources`
    /// once; its tree and the SHA-256 of its .dsc.
    pub fn source(
        &self,
        package: &str,
        version: &str,
        sources: &Path,
        log: &mut dyn std::io::Write,
    ) -> Result<(PathBuf, String)> {
        let plain = version.split_once(':').map_or(version, |(_, v)| v);
        let dir = sources.join(format!("{package}_{plain}"));
        let tree = dir.join("tree");
        let dsc = dir.join(format!("{package}_{plain}.dsc"));
        if !tree.join(".unpacked").is_file() {
            let versions = self.versions(package, log)?;
            if !versions.iter().any(|v| v == version) {
                return Err(usage(format!(
                    "Debian's {package} has no version {version} here; it has: {}",
                    versions.join(", ")
                )));
            }
            let _ = std::fs::remove_dir_all(&dir);
            self.builder.own(&dir)?;
            writeln!(log, "apt: downloading the source of {package} {version}")?;
            let out = self
                .command("apt-get", &dir)
                .args(["-q", "source", "--download-only"])
                .arg(format!("{package}={version}"))
                .output()
                .context("running apt-get source")?;
            if !out.status.success() || !dsc.is_file() {
                let _ = std::fs::remove_dir_all(&dir);
                let others: Vec<&String> = versions.iter().filter(|v| *v != version).collect();
                bail!(
                    "the mirror did not serve the source of {package} {version} ({}); name another version with debian:{package}=VERSION (Debian lists: {})",
                    first_error(&out.stderr),
                    others.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
                );
            }
            writeln!(
                log,
                "unpacking {} (Debian's patches applied)",
                dsc.display()
            )?;
            let unpacked = tree.with_extension("partial");
            let _ = std::fs::remove_dir_all(&unpacked);
            let out = self
                .builder
                .command("dpkg-source", &dir, &self.root)
                .arg("-x")
                .arg(&dsc)
                .arg(&unpacked)
                .output()
                .context("running dpkg-source -x (install dpkg-dev: bash scripts/setup.sh does)")?;
            if !out.status.success() {
                bail!(
                    "dpkg-source -x {} failed: {}",
                    dsc.display(),
                    last_line(&out.stderr)
                );
            }
            std::fs::write(unpacked.join(".unpacked"), format!("{package} {version}\n"))?;
            std::fs::rename(&unpacked, &tree)
                .with_context(|| format!("moving {} to {}", unpacked.display(), tree.display()))?;
        }
        let sha = crate::server::fetch::sha256(&dsc)?;
        Ok((tree, sha))
    }
}

/// The version of source package `package` that the system has installed a binary of
/// (`1:10.11.19-0+deb12u1` for mariadb when mariadb-server is installed).
pub fn installed_version(package: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args([
            "-W",
            "-f",
            "${source:Package}\t${source:Version}\t${db:Status-Status}\n",
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut found: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            let (src, ver, status) = (f.next()?, f.next()?, f.next()?);
            (src == package && status == "installed").then(|| ver.to_string())
        })
        .collect();
    found.sort_by(|a, b| compare_versions(b, a));
    found.into_iter().next()
}

/// Debian's version order (`dpkg --compare-versions`).
fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    let lt = |x: &str, y: &str| {
        Command::new("dpkg")
            .args(["--compare-versions", x, "lt", y])
            .status()
            .is_ok_and(|s| s.success())
    };
    if a == b {
        std::cmp::Ordering::Equal
    } else if lt(a, b) {
        std::cmp::Ordering::Less
    } else {
        std::cmp::Ordering::Greater
    }
}

/// The Debian mirror and security mirror the system's apt uses (deb.debian.org's when it names
/// none).
fn system_mirrors() -> (String, String) {
    let mut texts = vec![std::fs::read_to_string("/etc/apt/sources.list").unwrap_or_default()];
    if let Ok(dir) = std::fs::read_dir("/etc/apt/sources.list.d") {
        for e in dir.flatten() {
            if e.path()
                .extension()
                .is_some_and(|x| x == "sources" || x == "list")
            {
                texts.push(std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
    }
    let uris: Vec<String> = texts
        .iter()
        .flat_map(|t| t.lines())
        .flat_map(|l| {
            let l = l.trim();
            if let Some(u) = l.strip_prefix("URIs:") {
                u.split_whitespace().map(str::to_string).collect()
            } else if l.starts_with("deb ") || l.starts_with("deb-src ") {
                l.split_whitespace()
                    .find(|w| w.contains("://"))
                    .map(str::to_string)
                    .into_iter()
                    .collect()
            } else {
                Vec::new()
            }
        })
        .filter(|u| u.trim_end_matches('/').ends_with("/debian") || u.ends_with("/debian-security"))
        .collect();
    let pick = |security: bool, default: &str| {
        uris.iter()
            .find(|u| u.trim_end_matches('/').ends_with("-security") == security)
            .map(|u| u.trim_end_matches('/').to_string())
            .unwrap_or_else(|| default.to_string())
    };
    (
        pick(false, "http://deb.debian.org/debian"),
        pick(true, "http://deb.debian.org/debian-security"),
    )
}

fn sources_list((main, security): &(String, String)) -> String {
    let mut s = String::from("# psbench's own: Debian's source packages it may build.\n");
    for suite in SUITES {
        s.push_str(&format!("deb-src {main} {suite} main\n"));
        s.push_str(&format!("deb-src {security} {suite}-security main\n"));
    }
    s
}

/// apt's first `E:` line without its prefix (`Failed to fetch URL  404  Not Found`).
fn first_error(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.lines().find_map(|l| l.strip_prefix("E: ")) {
        Some(e) => e.split(" [IP").next().unwrap_or(e).trim().to_string(),
        None => last_line(bytes),
    }
}

fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sources_list_names_every_suite_and_its_security_updates() {
        let text = sources_list(&(
            "http://mirror.example/debian".into(),
            "http://mirror.example/debian-security".into(),
        ));
        assert!(text.contains("deb-src http://mirror.example/debian bookworm main\n"));
        assert!(
            text.contains("deb-src http://mirror.example/debian-security trixie-security main\n")
        );
        assert_eq!(text.matches("deb-src").count(), 6);
    }

    #[test]
    fn versions_order_as_debian_orders_them() {
        use std::cmp::Ordering::*;
        assert_eq!(
            compare_versions("1:10.11.19-0+deb12u1", "1:10.11.18-0+deb12u1"),
            Greater
        );
        assert_eq!(compare_versions("15.18-0+deb12u1", "15.20-0+deb12u1"), Less);
        assert_eq!(
            compare_versions("1:10.5.23-0+deb11u1", "1:10.11.6-0+deb12u1"),
            Less
        );
    }
}
