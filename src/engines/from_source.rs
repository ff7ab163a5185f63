//! Servers built from source, for `psbench build` and a variant's `build = { … }`: the engine
//! named or told from the source, the flag set checked before anything is fetched, the source
//! prepared and pinned, the engine's recipe run (or its build found in the cache), and the tree
//! checked to be a server of that engine.

pub use super::engine_named;
use super::{of_family, Engine, Family};
use crate::builds::{self, builder::Builder, debian, BuildRecord, SourceSpec};
use crate::error::usage;
use crate::results::study::{BuildSpec, Variant};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// What to build.
#[derive(Clone, Debug)]
pub struct Request {
    /// `mariadb`, `mysql` or `postgres`; told from the source when absent.
    pub engine: Option<String>,
    /// `debian:PACKAGE[=VERSION]`, a source tree or a tarball.
    pub source: String,
    pub flags: String,
    /// The user's own configure or cmake options, after the flag set's.
    pub extra: Vec<String>,
    /// A build in the cache by its name (`build = "NAME"`): that build, whatever this host's
    /// compiler, and no source needed.
    pub name: Option<String>,
}

impl Request {
    /// A variant's `build` key.
    pub fn of(b: &BuildSpec) -> Self {
        Request {
            engine: b.engine.clone(),
            source: b.source.clone(),
            flags: b.flags.clone(),
            extra: b.extra.clone(),
            name: b.name.clone(),
        }
    }

    /// What it asks of the build cache's records.
    pub fn asked(&self) -> super::imported::Asked<'_> {
        super::imported::Asked {
            source: &self.source,
            flags: &self.flags,
            extra: &self.extra,
        }
    }
}

/// A variant's `build` key, checked without fetching anything: its source names a server
/// psbench can tell (or its engine is given) and that engine has the flag set.
pub fn check(b: &BuildSpec) -> Result<()> {
    if b.source.is_empty() {
        if b.name.is_some() {
            // A name the cache lacks is said where the study is read (fill_named).
            return Ok(());
        }
        return Err(usage(
            "build needs a source (source = \"debian:mariadb\", a tree or a tarball), or is the name of a build in the cache (build = \"NAME\")",
        ));
    }
    let engine = engine_of_spec(b)?;
    check_flags(engine, &b.flags)
}

/// Each variant's `build = "NAME"` filled in from that build's record in the cache (its
/// source, flag set, options and engine), so that the study reads as if it named them; a name
/// the cache does not have is a mistake of that variant's.
pub fn fill_named(variants: &mut [Variant]) -> Vec<(String, String)> {
    let mut mistakes = Vec::new();
    for v in variants.iter_mut() {
        let Some(b) = v.build.as_mut() else { continue };
        let Some(name) = b.name.clone() else { continue };
        if !b.source.is_empty() {
            continue;
        }
        match super::imported::named(&name) {
            Ok((_, r)) => {
                b.source = r.source;
                b.flags = r.flags;
                b.extra = r.extra;
                b.engine = Some(r.engine);
                b.name = Some(r.name);
            }
            Err(e) => mistakes.push((
                v.name.clone(),
                format!(
                    "variant '{}': build: {}",
                    v.name,
                    crate::error::one_line(&e)
                ),
            )),
        }
    }
    mistakes
}

/// This CPU's feature flags (`PSBENCH_CPU_FLAGS` stands in for them).
pub fn cpu_flags() -> String {
    crate::builds::toolchain::cpu_flags()
}

/// Why cost mode cannot count this variant here, if it cannot (`uncountable_on` this CPU's
/// flags).
pub fn uncountable(v: &Variant) -> Option<String> {
    uncountable_on(v, &cpu_flags())
}

/// Why cost mode cannot count this variant on a CPU with these flags, if it cannot: its flag
/// set compiles for the CPU, and the CPU has instructions valgrind cannot run (AVX-512).
pub fn uncountable_on(v: &Variant, cpu_flags: &str) -> Option<String> {
    let b = v.build.as_ref()?;
    let engine = engine_of_spec(b).ok()?;
    if !engine
        .flag_sets()
        .iter()
        .any(|f| f.name == b.flags && f.native)
    {
        return None;
    }
    let unrunnable = crate::builds::toolchain::unrunnable_under_valgrind(cpu_flags);
    if unrunnable.is_empty() {
        return None;
    }
    let shown: Vec<&str> = unrunnable.iter().take(4).map(String::as_str).collect();
    Some(format!(
        "flag set {} compiles for this CPU, which has AVX-512 ({}{}), and valgrind cannot run AVX-512 code",
        b.flags,
        shown.join(", "),
        if unrunnable.len() > shown.len() { ", …" } else { "" }
    ))
}

/// Cost mode counts instructions under valgrind: a variant it cannot count here is refused
/// by name, before anything is built or started.
pub fn check_countable(variants: &[&Variant]) -> Result<()> {
    for v in variants {
        if let Some(why) = uncountable(v) {
            return Err(usage(format!(
                "variant '{}': {why}, so cost mode cannot count this build: measure it with mode = \"both\" (throughput only, then) or \"throughput\", or build flags = \"v3\"",
                v.name
            )));
        }
    }
    Ok(())
}

/// The engine that builds `b`, and the engine name its build records (`mariadb`, `mysql`,
/// `postgres`) where the spec tells it: named, or a Debian package's name. MariaDB and MySQL
/// share an engine, not a build time; a tree's files tell its engine, not its name.
pub fn engine_of_build(b: &BuildSpec) -> Result<(&'static dyn Engine, Option<String>)> {
    engine_and_name(&b.source, b.engine.as_deref())
}

/// The engine a variant's `build` key builds.
pub fn engine_of_spec(b: &BuildSpec) -> Result<&'static dyn Engine> {
    Ok(engine_of_build(b)?.0)
}

/// The Debian source packages psbench builds, by the start of their names.
const PACKAGES: [(&str, Family); 3] = [
    ("mariadb", Family::Mysql),
    ("mysql", Family::Mysql),
    ("postgres", Family::Postgres),
];

fn engine_and_name(
    source: &str,
    named: Option<&str>,
) -> Result<(&'static dyn Engine, Option<String>)> {
    let spec = SourceSpec::parse(source)?;
    if let Some(name) = named {
        return Ok((engine_named(name)?, Some(name.to_string())));
    }
    let found = match &spec {
        SourceSpec::Debian { package, .. } => PACKAGES
            .iter()
            .find(|(name, _)| package.starts_with(name))
            .map(|(name, family)| (of_family(*family), Some(name.to_string()))),
        SourceSpec::Tree(dir) => super::ALL
            .iter()
            .map(|f| of_family(*f))
            .find(|e| e.is_source(dir))
            .map(|e| (e, None)),
        SourceSpec::Tarball(_) => None,
    };
    found.ok_or_else(|| unknown_engine(source))
}

fn unknown_engine(source: &str) -> anyhow::Error {
    usage(format!(
        "cannot tell which server '{source}' is the source of: name the engine (mariadb, mysql or postgres)"
    ))
}

fn check_flags(engine: &dyn Engine, flags: &str) -> Result<()> {
    if engine.flag_sets().iter().any(|f| f.name == flags) {
        return Ok(());
    }
    let names: Vec<&str> = engine.flag_sets().iter().map(|f| f.name).collect();
    Err(usage(format!(
        "{} has no flag set '{flags}' (it has: {})",
        engine.name(),
        names.join(", ")
    )))
}

/// The engine, the prepared source and the builder of `req`, its flag set checked before
/// anything is fetched.
fn prepare(
    req: &Request,
    out: &mut dyn std::io::Write,
) -> Result<(&'static dyn Engine, builds::Source, Builder)> {
    let spec = SourceSpec::parse(&req.source)?;
    let engine = engine_and_name(&req.source, req.engine.as_deref())?.0;
    check_flags(engine, &req.flags)?;
    let builder = Builder::new()?;
    let cache = crate::server::fetch::cache_dir();
    let source = builds::source::prepare(&spec, &cache, &builder, debian::installed_version, out)?;
    if !engine.is_source(&source.dir) {
        return Err(usage(format!(
            "{} is not a {} source tree",
            source.dir.display(),
            engine.name()
        )));
    }
    Ok((engine, source, builder))
}

/// `psbench build --source-only`: the source fetched and unpacked, its tree.
pub fn source_only(req: &Request, out: &mut dyn std::io::Write) -> Result<builds::Source> {
    Ok(prepare(req, out)?.1)
}

/// `psbench build --configure-only`: the flag set's configure step alone; its build directory.
pub fn configure_only(req: &Request, out: &mut dyn std::io::Write) -> Result<PathBuf> {
    let (engine, source, builder) = prepare(req, out)?;
    builds::runner::configure_only(
        &source,
        &|layout| engine.recipe(&req.flags, &req.extra, layout),
        &builder,
        out,
    )
}

/// What the cache gives a request before anything is built.
enum Obtained {
    Found(&'static dyn Engine, PathBuf, Box<BuildRecord>),
    /// To be built (or found by its key once the source is prepared), with a note when the
    /// cache has this source and flag set from another compiler.
    ToBuild(Option<String>),
}

/// The build `req` asks for, without building: by its name; or, for a pinned source, from
/// the records in the cache (no source fetched).
fn obtained(req: &Request, out: &mut dyn std::io::Write) -> Result<Obtained> {
    if let Some(name) = &req.name {
        let (dir, r) = super::imported::named(name)?;
        writeln!(out, "build: {name}, named, from the cache")?;
        return Ok(Obtained::Found(engine_named(&r.engine)?, dir, Box::new(r)));
    }
    let engine = engine_and_name(&req.source, req.engine.as_deref())?.0;
    check_flags(engine, &req.flags)?;
    Ok(match super::imported::recorded(&req.asked(), engine)? {
        super::imported::Recorded::Found(dir, r) => {
            writeln!(out, "build: flag set {} of {}", r.flags, r.source)?;
            Obtained::Found(engine, dir, r)
        }
        super::imported::Recorded::OtherCompiler(others) => {
            let note = super::imported::other_compiler_note(&others);
            writeln!(out, "note: {note}")?;
            Obtained::ToBuild(Some(note))
        }
        super::imported::Recorded::Nothing => Obtained::ToBuild(None),
    })
}

/// The build `req` asks for: its directory in the build cache and its record (built now when
/// the cache does not have it). Progress and messages go to `out`.
pub fn build(req: &Request, out: &mut dyn std::io::Write) -> Result<(PathBuf, BuildRecord)> {
    let (engine, dir, record, built_now) = match obtained(req, out)? {
        Obtained::Found(engine, dir, record) => (engine, dir, *record, false),
        Obtained::ToBuild(note) => {
            let made = (|| -> Result<(&'static dyn Engine, PathBuf, BuildRecord, bool)> {
                let (engine, source, builder) = prepare(req, out)?;
                writeln!(out, "build: flag set {} of {}", req.flags, source.spec)?;
                let (dir, record, built_now) = builds::runner::build(
                    &engine.name().to_lowercase().replace(' ', "-"),
                    &source,
                    &|layout| engine.recipe(&req.flags, &req.extra, layout),
                    &builder,
                    out,
                )?;
                Ok((engine, dir, record, built_now))
            })();
            match (made, note) {
                (Err(e), Some(note)) => return Err(e.context(note)),
                (made, _) => made?,
            }
        }
    };
    let tree = BuildRecord::tree(&dir);
    let bin = engine
        .build_at(&tree)
        .with_context(|| format!("checking the built server at {}", tree.display()))?;
    let asked: Vec<String> = record
        .options
        .iter()
        .chain(&record.extra)
        .cloned()
        .collect();
    let read = engine
        .read_back(&dir, &asked, &bin)
        .and_then(|read| differs_from_other_flag_sets(&record).map(|()| read))
        .with_context(|| {
            format!(
                "build {} is not what flag set {} asks for",
                record.name, record.flags
            )
        });
    let read = match read {
        Ok(r) => r,
        Err(e) => {
            // Not left in the cache for a later request to find.
            let _ = builds::cache::remove(&builds::cache::builds_dir(), &record.name);
            return Err(e);
        }
    };
    writeln!(out, "read back: {}", read.join("; "))?;
    let when = if built_now {
        format!("built in {:.0} s", record.build_seconds)
    } else {
        format!(
            "from the cache; it took {:.0} s to build",
            record.build_seconds
        )
    };
    writeln!(
        out,
        "{}: {} ({} flags, {when})",
        record.name,
        super::label(&bin),
        record.flags
    )?;
    Ok((dir, record))
}

/// Different flag sets must give different servers: a build of the same source whose server
/// binary is byte for byte another flag set's did not get its flags.
fn differs_from_other_flag_sets(record: &BuildRecord) -> Result<()> {
    let same = builds::cache::list(&builds::cache::builds_dir())
        .into_iter()
        .map(|(_, r)| r)
        .find(|r| {
            r.engine == record.engine
                && r.source_sha256 == record.source_sha256
                && r.flags != record.flags
                && r.binary_sha256 == record.binary_sha256
        });
    match same {
        Some(other) => anyhow::bail!(
            "its server is byte for byte the one of {} (flag set {}): the flags did not reach the compiler",
            other.name,
            other.flags
        ),
        None => Ok(()),
    }
}

/// `psbench build --flag-sets [ENGINE]`: the options every flag set of a kind of source shares,
/// once, then each flag set, what it is for, and its own options.
pub fn flag_set_listing(engine: Option<&str>) -> Result<String> {
    let engines: Vec<&'static dyn Engine> = match engine {
        Some(name) => vec![engine_named(name)?],
        None => super::ALL.iter().map(|f| of_family(*f)).collect(),
    };
    let mut out = String::new();
    for e in engines {
        let mut sets = Vec::new();
        for f in e.flag_sets() {
            sets.push((f, e.flag_set_options(f.name)?));
        }
        let kinds: Vec<&str> = sets
            .first()
            .map(|(_, per_kind)| per_kind.iter().map(|(k, _)| *k).collect())
            .unwrap_or_default();
        let shared = |kind: &str| -> Vec<String> {
            let of = |opts: &[(&str, Vec<String>)]| {
                opts.iter()
                    .find(|(k, _)| *k == kind)
                    .map(|(_, o)| o.clone())
                    .unwrap_or_default()
            };
            let mut common = of(&sets[0].1);
            common.retain(|o| sets.iter().all(|(_, per_kind)| of(per_kind).contains(o)));
            common
        };
        for kind in &kinds {
            out.push_str(&format!(
                "{} ({kind}), every flag set: {}\n",
                e.name(),
                shared(kind).join(" ")
            ));
        }
        for (f, per_kind) in &sets {
            out.push_str(&format!("{} {}: {}\n", e.name(), f.name, f.purpose));
            for (kind, options) in per_kind {
                let common = shared(kind);
                let own: Vec<&str> = options
                    .iter()
                    .filter(|o| !common.contains(o))
                    .map(String::as_str)
                    .collect();
                let own = if own.is_empty() {
                    "only the shared options".to_string()
                } else {
                    own.join(" ")
                };
                out.push_str(&format!("  {kind}: {own}\n"));
            }
        }
    }
    Ok(out)
}
