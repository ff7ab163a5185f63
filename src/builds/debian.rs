//! Debian's source packages through apt's own source support, with psbench's own sources
//! lists, lists and archive directories in its cache: the system's apt configuration is never
//! read for sources nor changed. The mirrors are the ones the system already uses (its
//! sources' URIs), the suites those whose releases psbench builds: bookworm (MariaDB 10.11,
//! PostgreSQL 15), bullseye (MariaDB 10.5, PostgreSQL 13) and trixie (MariaDB 11.8,
//! PostgreSQL 17), each with its security updates; and unstable, asked only for a package no
//! stable suite carries (MySQL: `mysql-9.7`). Unstable drops a version when a newer one is
//! uploaded, so a fetched source is kept with the SHA-256 of its orig tarball checked against
//! its .dsc, and a pinned one is found in the cache without asking the mirror.

use super::builder::Builder;
use crate::error::usage;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

/// The stable suites, each with its security updates.
const STABLE: &[&str] = &["bookworm", "bullseye", "trixie"];
/// Asked only for a package none of the stable suites carries; it has no security suite.
const UNSTABLE: &[&str] = &["unstable"];
/// Lists older than this are fetched again before a version is chosen.
const LISTS_FRESH_FOR: Duration = Duration::from_secs(24 * 3600);

/// psbench's apt state for some suites under one directory, run as the builder.
pub struct Apt<'a> {
    root: PathBuf,
    builder: &'a Builder,
    suites: &'static [&'static str],
}

impl<'a> Apt<'a> {
    fn new(root: &Path, builder: &'a Builder, suites: &'static [&'static str]) -> Self {
        Apt {
            root: root.to_path_buf(),
            builder,
            suites,
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
        let text = sources_list(&system_mirrors(), self.suites);
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

    /// Download and unpack `package` at `version` (Debian's patches applied) into `dir`: its
    /// .dsc, tarballs and tree. The orig tarball's SHA-256 is checked against the .dsc's and
    /// kept beside them.
    fn download(
        &self,
        package: &str,
        version: &str,
        dir: &Path,
        others: &[String],
        log: &mut dyn std::io::Write,
    ) -> Result<()> {
        let plain = version.split_once(':').map_or(version, |(_, v)| v);
        let tree = dir.join("tree");
        let dsc = dir.join(format!("{package}_{plain}.dsc"));
        let _ = std::fs::remove_dir_all(dir);
        self.builder.own(dir)?;
        writeln!(log, "apt: downloading the source of {package} {version}")?;
        let out = self
            .command("apt-get", dir)
            .args(["-q", "source", "--download-only"])
            .arg(format!("{package}={version}"))
            .output()
            .context("running apt-get source")?;
        if !out.status.success() || !dsc.is_file() {
            let _ = std::fs::remove_dir_all(dir);
            bail!(
                "the mirror did not serve the source of {package} {version} ({}); name another version with debian:{package}=VERSION (Debian lists: {})",
                first_error(&out.stderr),
                others.join(", ")
            );
        }
        let orig = orig_sha256(&dsc, dir)?;
        std::fs::write(dir.join(ORIG_SHA256), format!("{orig}\n"))?;
        writeln!(
            log,
            "unpacking {} (Debian's patches applied; orig tarball sha256 {orig})",
            dsc.display()
        )?;
        let unpacked = tree.with_extension("partial");
        let _ = std::fs::remove_dir_all(&unpacked);
        let out = self
            .builder
            .command("dpkg-source", dir, &self.root)
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
            .with_context(|| format!("moving {} to {}", unpacked.display(), tree.display()))
    }
}

/// The file beside a fetched source that holds its orig tarball's SHA-256.
pub const ORIG_SHA256: &str = "orig.sha256";

/// Debian's source packages: the stable suites, and unstable for a package none of them
/// carries.
pub struct Debian<'a> {
    stable: Apt<'a>,
    unstable: Apt<'a>,
}

impl<'a> Debian<'a> {
    /// psbench's apt state under `cache` (`apt/` for the stable suites, `apt-unstable/`).
    pub fn new(cache: &Path, builder: &'a Builder) -> Self {
        Debian {
            stable: Apt::new(&cache.join("apt"), builder, STABLE),
            unstable: Apt::new(&cache.join("apt-unstable"), builder, UNSTABLE),
        }
    }

    /// The suites that carry `package` and their versions of it, newest first: the stable
    /// suites' when any has it, else unstable's.
    fn carrying(
        &self,
        package: &str,
        log: &mut dyn std::io::Write,
    ) -> Result<(&Apt<'a>, Vec<String>)> {
        let stable = self.stable.versions(package, log)?;
        if !stable.is_empty() {
            return Ok((&self.stable, stable));
        }
        let unstable = self.unstable.versions(package, log)?;
        Ok((&self.unstable, unstable))
    }

    /// The newest version of `package` the mirror serves (or psbench's cache holds): the
    /// versions listed are tried newest first, since a list can name one whose files the
    /// mirror no longer (or not yet) has. Its version, tree and .dsc SHA-256.
    pub fn newest_served(
        &self,
        package: &str,
        sources: &Path,
        log: &mut dyn std::io::Write,
    ) -> Result<(String, PathBuf, String)> {
        let (apt, versions) = self.carrying(package, log)?;
        if versions.is_empty() {
            return Err(usage(format!(
                "Debian has no source package '{package}' in {} or unstable (e.g. mariadb, mariadb-10.5, postgresql-15, postgresql-13, postgresql-17, mysql-9.7)",
                STABLE.join(", ")
            )));
        }
        let mut refused = Vec::new();
        for version in &versions {
            let dir = source_dir(sources, package, version);
            if !dir.join("tree/.unpacked").is_file() {
                let others: Vec<String> =
                    versions.iter().filter(|v| *v != version).cloned().collect();
                if let Err(e) = apt.download(package, version, &dir, &others, log) {
                    writeln!(log, "{package} {version} is listed but not served: {e}")?;
                    refused.push(version.as_str());
                    continue;
                }
            }
            let (tree, sha) = cached(package, version, sources)?;
            return Ok((version.clone(), tree, sha));
        }
        bail!(
            "the mirror lists {package} {} but served none of them",
            refused.join(", ")
        )
    }

    /// `package` at `version` under `sources` (downloaded and unpacked once, then found there
    /// without asking the mirror, also after the mirror drops it): its tree and the SHA-256 of
    /// its .dsc, which lists the checksum of every tarball it unpacks.
    pub fn source(
        &self,
        package: &str,
        version: &str,
        sources: &Path,
        log: &mut dyn std::io::Write,
    ) -> Result<(PathBuf, String)> {
        let dir = source_dir(sources, package, version);
        if !dir.join("tree/.unpacked").is_file() {
            let (apt, versions) = self.carrying(package, log)?;
            if !versions.iter().any(|v| v == version) {
                let served = match versions.is_empty() {
                    true => "none".to_string(),
                    false => versions.join(", "),
                };
                return Err(usage(format!(
                    "Debian's {package} has no version {version} on the mirror now, nor in psbench's cache ({}); the mirror lists: {served}",
                    sources.display()
                )));
            }
            let others: Vec<String> = versions.into_iter().filter(|v| v != version).collect();
            apt.download(package, version, &dir, &others, log)?;
        }
        cached(package, version, sources)
    }
}

/// Where `package` at `version` is kept under `sources`.
fn source_dir(sources: &Path, package: &str, version: &str) -> PathBuf {
    let plain = version.split_once(':').map_or(version, |(_, v)| v);
    sources.join(format!("{package}_{plain}"))
}

/// A source already unpacked under `sources`: its tree and the SHA-256 of its .dsc.
fn cached(package: &str, version: &str, sources: &Path) -> Result<(PathBuf, String)> {
    let dir = source_dir(sources, package, version);
    let plain = version.split_once(':').map_or(version, |(_, v)| v);
    let sha = crate::server::fetch::sha256(&dir.join(format!("{package}_{plain}.dsc")))?;
    Ok((dir.join("tree"), sha))
}

/// The SHA-256 of the orig tarball `dsc` lists, checked against the file beside it.
fn orig_sha256(dsc: &Path, dir: &Path) -> Result<String> {
    let text =
        std::fs::read_to_string(dsc).with_context(|| format!("reading {}", dsc.display()))?;
    let (sha, name) = text
        .split("Checksums-Sha256:")
        .nth(1)
        .into_iter()
        .flat_map(|section| section.lines().skip(1))
        .take_while(|l| l.starts_with(' '))
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (sha, _size, name) = (f.next()?, f.next()?, f.next()?);
            Some((sha.to_string(), name.to_string()))
        })
        .find(|(_, name)| name.contains(".orig.tar."))
        .with_context(|| format!("{} lists no orig tarball", dsc.display()))?;
    let got = crate::server::fetch::sha256(&dir.join(&name))?;
    anyhow::ensure!(
        got == sha,
        "{name}: SHA-256 {got}, but {} lists {sha}",
        dsc.display()
    );
    Ok(sha)
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

fn sources_list((main, security): &(String, String), suites: &[&str]) -> String {
    let mut s = String::from("# psbench's own: Debian's source packages it may build.\n");
    for suite in suites {
        s.push_str(&format!("deb-src {main} {suite} main\n"));
        if *suite != "unstable" {
            s.push_str(&format!("deb-src {security} {suite}-security main\n"));
        }
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
        let mirrors = (
            "http://mirror.example/debian".to_string(),
            "http://mirror.example/debian-security".to_string(),
        );
        let text = sources_list(&mirrors, STABLE);
        assert!(text.contains("deb-src http://mirror.example/debian bookworm main\n"));
        assert!(
            text.contains("deb-src http://mirror.example/debian-security trixie-security main\n")
        );
        assert_eq!(text.matches("deb-src").count(), 6);
        // Unstable has no security suite.
        assert_eq!(
            sources_list(&mirrors, UNSTABLE)
                .lines()
                .skip(1)
                .collect::<Vec<_>>(),
            ["deb-src http://mirror.example/debian unstable main"]
        );
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
