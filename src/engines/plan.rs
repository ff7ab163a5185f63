//! Where each server of a study would come from, before anything is fetched, built or
//! started: `psbench run STUDY --plan`.

use super::releases::Release;
use crate::results::study::{Study, Variant};
use crate::results::{CountTime, Flavour};

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

/// A count's wall seconds under callgrind when this host's history has none of the engine and
/// step: a point select's count of 3000 transactions, cost mode's default (its server's start
/// included), measured on the 2-core development VM with nothing else running (2026-12-08):
/// MariaDB 10.11 8.6 and 9.0 s, MySQL 8.0.15 16.4 and 17.3 s (each repeated), PostgreSQL
/// 15 15.4 and 19.7 s (`pgbench_select_only`). Heavier transactions take longer: a read-only
/// count of as many took 162 and 172 s on MariaDB.
fn default_count_seconds(flavour: Option<Flavour>) -> (f64, &'static str) {
    match flavour {
        Some(Flavour::MariaDb) | None => (8.8, "MariaDB"),
        Some(Flavour::MySql) => (16.9, "MySQL"),
        Some(Flavour::Postgres) => (17.5, "PostgreSQL"),
    }
}

/// What one count of a variant's server should take here, and where that comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct CountEstimate {
    pub seconds: f64,
    /// `the median of 12 counts of MariaDB's point_select in this host's history`.
    pub source: String,
}

/// A count of `step` on variant `v`'s server, of `events` transactions in its largest window
/// (`None`: rows of a sequence): the median of this host's counts of the same engine, step and
/// window; else of the same engine and step, each scaled to `events`; else psbench's default
/// for the engine. Another step's time says little (a read-only transaction costs many point
/// selects'), and studies give heavy steps fewer transactions, so the default is not scaled.
pub fn count_estimate(
    v: &Variant,
    step: &str,
    events: Option<u32>,
    here: &[CountTime],
) -> CountEstimate {
    let flavour = flavour(v);
    let (default, name) = default_count_seconds(flavour);
    let engine = flavour.map(flavour_name).unwrap_or("mariadb");
    let of_step: Vec<&CountTime> = here
        .iter()
        .filter(|c| c.engine == engine && c.step == step)
        .collect();
    let alike: Vec<f64> = of_step
        .iter()
        .filter(|c| c.events == events)
        .map(|c| c.seconds)
        .collect();
    if let Some(m) = median(&alike) {
        return CountEstimate {
            seconds: m,
            source: format!(
                "the median of {} count(s) of {name}'s {step} in this host's history",
                alike.len()
            ),
        };
    }
    let scaled: Vec<f64> = of_step
        .iter()
        .filter_map(|c| match (events, c.events) {
            (Some(e), Some(n)) if n > 0 => Some(c.seconds * e as f64 / n as f64),
            _ => None,
        })
        .collect();
    if let Some(m) = median(&scaled) {
        return CountEstimate {
            seconds: m,
            source: format!(
                "the median of {} count(s) of {name}'s {step} in this host's history, scaled to {} transactions",
                scaled.len(),
                events.unwrap_or_default()
            ),
        };
    }
    CountEstimate {
        seconds: default,
        source: format!(
            "psbench's default for {name}: a point select's time, measured on a 2-core VM; this host's history has none of this step"
        ),
    }
}

fn median(xs: &[f64]) -> Option<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The flavour as documents name it.
fn flavour_name(f: Flavour) -> &'static str {
    match f {
        Flavour::MariaDb => "mariadb",
        Flavour::MySql => "mysql",
        Flavour::Postgres => "postgres",
    }
}

/// The server flavour variant `v` runs, told before anything is fetched or started: a release
/// by its name, a build by the engine its source names, a tree or the system's server by its
/// binary; `None` when nothing tells it (a tree not there, a MySQL-family tree to build).
pub fn flavour(v: &Variant) -> Option<Flavour> {
    if let Some(b) = &v.build {
        return build_flavour(b);
    }
    if let Some(r) = &v.version {
        return Release::parse(r).ok().map(|r| r.flavour);
    }
    let bin = match &v.basedir {
        Some(d) => super::locate(Some(d)).ok()?,
        None => super::variant::engine(v).system().ok()?,
    };
    Some(bin.flavour)
}

/// The flavour a build's source or `engine` names; a MySQL-family tree names none.
fn build_flavour(b: &crate::results::study::BuildSpec) -> Option<Flavour> {
    let (engine, name) = super::from_source::engine_of_build(b).ok()?;
    match name.as_deref() {
        Some("mariadb") => Some(Flavour::MariaDb),
        Some("mysql") => Some(Flavour::MySql),
        _ if engine.family() == crate::results::Family::Postgres => Some(Flavour::Postgres),
        _ => None,
    }
}

/// A build's minutes when no build of its flags is recorded here and its study measured none,
/// on the 2-core development VM: MySQL 9.7.2's release flag set 49.6 min from an empty ccache
/// (its record in the builds archives, 2026-11), MariaDB 10.11 17.5 min (pfs-builds' two builds
/// in 35 min), PostgreSQL 15 4.2 min (docs/ci.md's base build, 253 s).
fn default_build_minutes(flavour: Option<Flavour>) -> Option<(f64, &'static str)> {
    match flavour? {
        Flavour::MySql => Some((49.6, "MySQL")),
        Flavour::MariaDb => Some((17.5, "MariaDB")),
        Flavour::Postgres => Some((4.2, "PostgreSQL")),
    }
}

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
        (None, None) => match default_build_minutes(build_flavour(b)) {
            Some((m, name)) => (
                format!(
                    "{what}: to build, about {m:.0} min (psbench's default for a {name} build, measured on a 2-core VM: no build with these flags here)"
                ),
                m * 60.0,
            ),
            None => (
                format!("{what}: to build (no build time known here)"),
                0.0,
            ),
        },
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

    fn count(engine: &str, step: &str, seconds: f64, events: u32) -> CountTime {
        CountTime {
            engine: engine.into(),
            step: step.into(),
            seconds,
            events: Some(events),
        }
    }

    #[test]
    fn a_count_is_expected_to_take_what_counts_of_its_engine_and_step_took_here() {
        let v: Variant = toml::from_str("name = \"new\"\nversion = \"mysql-8.0.15\"").unwrap();
        assert_eq!(flavour(&v), Some(Flavour::MySql));
        let here = [
            count("mysql", "point_select", 40.0, 3000),
            count("mysql", "point_select", 30.0, 1000),
            count("mysql", "read_only", 10.0, 3000),
            count("mariadb", "point_select", 5.0, 3000),
            count("postgres", "l.i0", 99.0, 3000),
        ];
        // The counts of as many transactions, else each scaled: 40 s and 90 s for 3000.
        let e = count_estimate(&v, "point_select", Some(3000), &here[1..]);
        assert_eq!(e.seconds, 90.0);
        assert_eq!(
            e.source,
            "the median of 1 count(s) of MySQL's point_select in this host's history, scaled to 3000 transactions"
        );
        let e = count_estimate(&v, "point_select", Some(3000), &here);
        assert_eq!(e.seconds, 40.0);
        assert_eq!(
            e.source,
            "the median of 1 count(s) of MySQL's point_select in this host's history"
        );
        // 2000: 26.7 s and 60 s.
        let e = count_estimate(&v, "point_select", Some(2000), &here);
        assert!((e.seconds - 130.0 / 3.0).abs() < 1e-9, "{}", e.seconds);
        assert!(e.source.contains("2 count(s)"), "{}", e.source);
        // A step not counted here: the engine's default, never its other steps' or another
        // engine's time.
        let e = count_estimate(&v, "l.i0", None, &here);
        assert_eq!(e.seconds, default_count_seconds(Some(Flavour::MySql)).0);
        assert!(
            e.source.starts_with("psbench's default for MySQL"),
            "{}",
            e.source
        );
        let pg: Variant = toml::from_str("name = \"pg\"\nversion = \"postgres-17.2.0\"").unwrap();
        let e = count_estimate(&pg, "read_only", Some(1500), &here);
        assert_eq!(e.seconds, default_count_seconds(Some(Flavour::Postgres)).0);
        assert!(
            e.source.starts_with("psbench's default for PostgreSQL"),
            "{}",
            e.source
        );
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
