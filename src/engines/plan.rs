//! Where each server of a study would come from, before anything is fetched, built or
//! started: `psbench run STUDY --plan`.

use super::releases::Release;
use crate::results::study::{Study, Variant};

/// One server a study runs: what it is, and what getting it costs before the study starts.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSource {
    /// `mysql-8.0.15: fetched already, 410 MB in /var/cache/…`.
    pub line: String,
    /// The variants that run it.
    pub variants: Vec<String>,
    /// Seconds to fetch or build it first (0 when it is ready).
    pub seconds_first: f64,
}

/// Seconds a release takes to fetch and unpack from Maven Central here (about 15 s each for
/// the PostgreSQL releases of the built-in sweep, 2026-11-27).
const FETCH_S: f64 = 15.0;

/// Each distinct server of the study, in the order variants first name it.
pub fn servers(study: &Study) -> Vec<ServerSource> {
    let mut out: Vec<(String, ServerSource)> = Vec::new();
    for v in &study.variants {
        let key = identity(v);
        if let Some((_, s)) = out.iter_mut().find(|(k, _)| *k == key) {
            s.variants.push(v.name.clone());
            continue;
        }
        let (line, seconds_first) = describe(v, study);
        out.push((
            key,
            ServerSource {
                line,
                variants: vec![v.name.clone()],
                seconds_first,
            },
        ));
    }
    out.into_iter().map(|(_, s)| s).collect()
}

/// What makes two variants run the same server binary.
fn identity(v: &Variant) -> String {
    if let Some(b) = &v.build {
        return format!(
            "build {} {} {:?} {:?}",
            b.source, b.flags, b.extra, b.engine
        );
    }
    if let Some(ver) = &v.version {
        return format!("release {ver}");
    }
    if let Some(d) = &v.basedir {
        return format!("tree {}", d.display());
    }
    format!("system {}", super::variant::engine(v).name())
}

fn describe(v: &Variant, study: &Study) -> (String, f64) {
    if let Some(b) = &v.build {
        return build_line(b, study);
    }
    if let Some(ver) = &v.version {
        return release_line(ver);
    }
    if let Some(d) = &v.basedir {
        return match super::locate(Some(d)) {
            Ok(bin) => (format!("{} in {}", super::label(&bin), d.display()), 0.0),
            Err(e) => (format!("{}: {e:#}", d.display()), 0.0),
        };
    }
    let engine = super::variant::engine(v);
    match engine.system() {
        Ok(bin) => (
            format!(
                "{} (the system's, {}), run in a sandbox",
                super::label(&bin),
                bin.server.display()
            ),
            0.0,
        ),
        Err(e) => (format!("the system's {}: {e:#}", engine.name()), 0.0),
    }
}

fn release_line(name: &str) -> (String, f64) {
    let Ok(r) = Release::parse(name) else {
        return (format!("{name}: not a release psbench can fetch"), 0.0);
    };
    let cache = crate::server::fetch::cache_dir();
    let dir = super::fetch::basedir(&r, &cache);
    if super::fetch::cached(&r, &cache) {
        let mb = crate::builds::cache::size_of(&cache.join(r.name())) as f64 / 1e6;
        return (
            format!(
                "{}: fetched already, {mb:.0} MB in {}",
                r.name(),
                dir.display()
            ),
            0.0,
        );
    }
    let coords = r.artifact().map(|a| a.coordinates()).unwrap_or_default();
    (
        format!(
            "{}: to fetch from Maven Central ({coords}; {}), about {FETCH_S:.0} s",
            r.name(),
            r.builder()
        ),
        FETCH_S,
    )
}

fn build_line(b: &crate::results::study::BuildSpec, study: &Study) -> (String, f64) {
    use super::imported::{self, Recorded};
    if let Some(name) = &b.name {
        return match imported::named(name) {
            Ok((dir, r)) => (
                format!(
                    "{name}: named, in the cache ({:.0} MB in {}, made on {} with {})",
                    r.size_bytes as f64 / 1e6,
                    dir.display(),
                    r.host,
                    r.compiler
                ),
                0.0,
            ),
            Err(e) => (format!("{name}: {}", crate::error::one_line(&e)), 0.0),
        };
    }
    let what = format!("a build of {} with flags {}", b.source, b.flags);
    let mut note = String::new();
    if let Ok(engine) = super::from_source::engine_of_spec(b) {
        match imported::recorded(&super::from_source::Request::of(b).asked(), engine) {
            Ok(Recorded::Found(dir, r)) => {
                return (
                    format!(
                        "{what}: built already, {:.0} MB in {} (built in {:.0} min)",
                        r.size_bytes as f64 / 1e6,
                        dir.display(),
                        r.build_seconds / 60.0
                    ),
                    0.0,
                )
            }
            Ok(Recorded::OtherCompiler(others)) => {
                note = format!("; {}", imported::other_compiler_note(&others))
            }
            Ok(Recorded::Nothing) | Err(_) => {}
        }
    }
    let (line, seconds) = build_estimate(b, study, &what);
    (format!("{line}{note}"), seconds)
}

/// Whether record `r` is a build of `b`'s engine with its flags: its time is the estimate.
fn like_build(
    b: &crate::results::study::BuildSpec,
    family: Option<super::Family>,
    engine: Option<&str>,
    r: &crate::builds::BuildRecord,
) -> bool {
    r.flags == b.flags
        && r.extra == b.extra
        && engine.is_none_or(|e| e == r.engine)
        && family.is_none_or(|f| super::family_named(&r.engine) == f)
}

/// A build the cache may not have: found by its source and flags, else how long it takes.
fn build_estimate(
    b: &crate::results::study::BuildSpec,
    study: &Study,
    what: &str,
) -> (String, f64) {
    let records = crate::builds::cache::list(&crate::builds::cache::builds_dir());
    let here = crate::builds::toolchain::compilers().unwrap_or_default();
    // A tree names no engine: its files tell it, so that a PostgreSQL tree's estimate is not
    // a MySQL build's time.
    let (family, engine) = match super::from_source::engine_of_build(b) {
        Ok((e, name)) => (Some(e.family()), name),
        Err(_) => (None, None),
    };
    let same_flags = |r: &crate::builds::BuildRecord| like_build(b, family, engine.as_deref(), r);
    let same_source = |r: &crate::builds::BuildRecord| {
        r.source == b.source || r.source.starts_with(&format!("{}=", b.source))
    };
    if let Some((dir, r)) = records
        .iter()
        .find(|(_, r)| same_flags(r) && same_source(r) && r.compiler == here)
    {
        return (
            format!(
                "{what}: built already, {:.0} MB in {} (built in {:.0} min)",
                r.size_bytes as f64 / 1e6,
                dir.display(),
                r.build_seconds / 60.0
            ),
            0.0,
        );
    }
    // The build time of the last build with these flags here, else the study's measured one.
    let last = records
        .iter()
        .filter(|(_, r)| same_flags(r))
        .max_by_key(|(_, r)| r.built_unix)
        .map(|(_, r)| r.build_seconds);
    match (last, study.expected_build_minutes) {
        (Some(s), _) => (
            format!(
                "{what}: to build, about {:.0} min (the last build with these flags here took that)",
                s / 60.0
            ),
            s,
        ),
        (None, Some(m)) => {
            // The study's measured figure is for all its builds.
            let builds = study.variants.iter().filter_map(|v| v.build.as_ref());
            let mut distinct: Vec<&crate::results::study::BuildSpec> = Vec::new();
            for b in builds {
                if !distinct.contains(&b) {
                    distinct.push(b);
                }
            }
            let each = m / distinct.len().max(1) as f64;
            (
                format!("{what}: to build, about {each:.0} min (as measured for this study)"),
                each * 60.0,
            )
        }
        (None, None) => (
            format!("{what}: to build (no build time known here)"),
            0.0,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::study::BuildSpec;

    fn record(engine: &str, flags: &str, source: &str) -> crate::builds::BuildRecord {
        serde_json::from_value(serde_json::json!({
            "name": format!("{engine}-x-{flags}-00000000"), "key": "k", "engine": engine,
            "release": "x", "flags": flags, "options": [], "source": source,
            "source_version": "x", "source_sha256": "x", "compiler": "cc", "recipe_version": 3,
            "host": "vm", "built_unix": 1, "build_seconds": 2302.0, "size_bytes": 1,
            "server": "bin/mysqld", "binary_sha256": "x"
        }))
        .unwrap()
    }

    fn spec(text: &str) -> BuildSpec {
        toml::from_str(text).unwrap()
    }

    fn like(b: &BuildSpec, r: &crate::builds::BuildRecord) -> bool {
        let (family, engine) = match super::super::from_source::engine_of_build(b) {
            Ok((e, name)) => (Some(e.family()), name),
            Err(_) => (None, None),
        };
        like_build(b, family, engine.as_deref(), r)
    }

    #[test]
    fn a_mariadb_build_is_not_estimated_from_a_mysql_build_of_the_same_flags() {
        let mariadb = spec("source = \"debian:mariadb=1:10.11.18-0+deb12u1\"\nflags = \"no_pfs\"");
        let mysql_build = record("mysql", "no_pfs", "debian:mysql-9.7=9.7.2-4");
        let mariadb_build = record("mariadb", "no_pfs", "debian:mariadb=1:10.11.18-0+deb12u1");
        assert!(!like(&mariadb, &mysql_build));
        assert!(like(&mariadb, &mariadb_build));
        let mysql = spec("source = \"debian:mysql-9.7\"\nflags = \"no_pfs\"");
        assert!(like(&mysql, &mysql_build));
        assert!(!like(&mysql, &mariadb_build));
        // Another flag set is another build time.
        assert!(!like(
            &mysql,
            &record("mysql", "release", "debian:mysql-9.7")
        ));
    }
}
