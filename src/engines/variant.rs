//! A study's variant as a server: which engine runs it, the options it asks for, its build
//! resolved (a release fetched, the system's tree named), and its start — scenario and options,
//! a fresh copy of the prepared datadir, its runtime SQL, and the check that it all took
//! effect.

use super::{build, locate_family, of_family, Engine};
use crate::error::usage;
use crate::results::study::{Study, Variant};
use crate::results::{CpuList, Family, Placement, VariantProvenance};
use crate::server::options;
use crate::server::{Home, Sandbox, SandboxSpec, ServerOption};
use anyhow::{Context, Result};
use std::path::Path;
use std::time::Duration;

/// The engine family a variant runs: `engine = "postgres"`, a `postgres-…` version or a
/// basedir holding a PostgreSQL tree; otherwise the MySQL family.
pub fn family(v: &Variant) -> Family {
    let named = v.engine.as_deref() == Some("postgres");
    if named || build_family(v) == Some(Family::Postgres) {
        Family::Postgres
    } else {
        Family::Mysql
    }
}

/// The family of the build a variant names by version, basedir or build, if it names one.
pub fn build_family(v: &Variant) -> Option<Family> {
    if let Some(b) = &v.build {
        return super::from_source::engine_of_spec(b)
            .ok()
            .map(|e| e.family());
    }
    if let Some(r) = &v.version {
        return super::releases::Release::parse(r).ok().map(|r| r.family());
    }
    let dir = v.basedir.as_deref()?;
    Some(if of_family(Family::Postgres).is_tree(dir) {
        Family::Postgres
    } else {
        Family::Mysql
    })
}

/// The engine that runs variant `v`.
pub fn engine(v: &Variant) -> &'static dyn Engine {
    of_family(family(v))
}

/// Variants that name a release (`mariadb-11.4.5`, `mysql-8.0.15`) get its basedir, fetched if
/// missing; a PostgreSQL variant with neither gets the system's newest tree.
pub fn resolve_builds(study: &mut Study) -> Result<()> {
    // Each build once, however many variants run it.
    let mut built: Vec<(crate::results::study::BuildSpec, std::path::PathBuf)> = Vec::new();
    for v in &mut study.variants {
        if v.basedir.is_some() {
            continue;
        }
        if let Some(b) = &v.build {
            if let Some((_, tree)) = built.iter().find(|(spec, _)| spec == b) {
                v.basedir = Some(tree.clone());
                continue;
            }
            let (dir, _) = super::from_source::build(
                &super::from_source::Request::of(b),
                &mut std::io::stderr(),
            )
            .with_context(|| format!("building variant {}'s server", v.name))?;
            let tree = crate::builds::BuildRecord::tree(&dir);
            built.push((b.clone(), tree.clone()));
            v.basedir = Some(tree);
        } else if let Some(ver) = &v.version {
            let dir = super::fetch::release(
                ver,
                &crate::server::fetch::cache_dir(),
                &mut std::io::stderr(),
            )?;
            v.basedir = Some(dir);
        } else if v.engine.is_some() {
            // Named by its tree, so that its data is prepared once per tree.
            v.basedir = engine(v).system()?.basedir;
        }
    }
    Ok(())
}

/// Before any server starts: every variant's scenario exists on the server it resolved to
/// (a scenario that needs performance_schema on a build without it is named here).
pub fn check_scenarios(study: &Study) -> Result<()> {
    for v in &study.variants {
        let Some(s) = &v.scenario else { continue };
        let e = engine(v);
        let bin = locate_family(Some(e.family()), v.basedir.as_deref())?;
        e.scenario_available(s, &bin)
            .map_err(|err| usage(format!("variant '{}': {err}", v.name)))?;
    }
    Ok(())
}

/// The options a variant asks for: its scenario's, then its own.
pub fn options(v: &Variant) -> Result<Vec<ServerOption>> {
    let mut opts = match &v.scenario {
        Some(s) => engine(v).scenario_options(s)?,
        None => Vec::new(),
    };
    for o in &v.options {
        opts.push(ServerOption::parse(o)?);
    }
    Ok(opts)
}

/// Whether settings preset `name` exists for the variant's engine (its options are worked
/// out per build when the variant starts). PostgreSQL variants with a preset are refused by
/// the study checks, with their own message.
pub fn check_preset(v: &Variant, name: &str) -> Result<()> {
    match family(v) {
        Family::Mysql => super::mysql::presets::check(name),
        Family::Postgres => Ok(()),
    }
}

/// Connections beside the clients: the study's own (probes, status reads, the Insert
/// Benchmark's admin connection) and one for a person looking in.
const SPARE_CONNECTIONS: u32 = 8;

/// What `clients` client connections need of the server beyond the sandbox's defaults
/// (max_connections, and what the engine needs for their prepared statements). A setting the
/// variant makes itself stands (and a cell beyond it fails naming it).
pub fn connection_options(v: &Variant, clients: u32) -> Result<Vec<ServerOption>> {
    let own = options(v)?;
    let connections = clients + SPARE_CONNECTIONS;
    let mut out = Vec::new();
    if connections > super::DEFAULT_MAX_CONNECTIONS
        && !own.iter().any(|o| o.base_key() == "max_connections")
    {
        out.push(ServerOption::new(
            "max_connections",
            &connections.to_string(),
        ));
    }
    out.extend(engine(v).connection_options(connections, &own));
    Ok(out)
}

/// How to start a variant.
pub struct Launch<'a> {
    pub variant: &'a Variant,
    pub home: &'a Home,
    /// Unique per study run, so that two studies never share a sandbox.
    pub sandbox_name: String,
    pub datadir: &'a Path,
    /// The database the variant's SQL and scenario act in, where the engine has one per
    /// workload (PostgreSQL's extensions are per database).
    pub database: &'a str,
    /// Extra options (cost mode's valgrind needs) and the wrapper program.
    pub extra_options: Vec<ServerOption>,
    pub wrapper: Vec<String>,
    pub ready_timeout: Duration,
    /// The CPUs the server runs on, read back with the client's into the provenance; `None`:
    /// psbench's own, nothing recorded.
    pub cpus: Option<CpuList>,
}

/// Start, apply, verify. An error here means the variant did not take effect: it stops the study.
pub fn start(l: &Launch) -> Result<(Sandbox, VariantProvenance)> {
    let v = l.variant;
    let engine = engine(v);
    // Located once: it runs the server's `--version`.
    let bin = locate_family(Some(engine.family()), v.basedir.as_deref())?;
    if let Some(s) = &v.scenario {
        // Before the server starts: a scenario its flavour lacks is named, not left to the
        // server's "unknown variable".
        engine
            .scenario_available(s, &bin)
            .map_err(|e| usage(format!("variant '{}': {e}", v.name)))?;
    }
    let mut spec = SandboxSpec::new(&l.sandbox_name, l.home.clone());
    spec.basedir = v.basedir.clone();
    spec.family = Some(engine.family());
    let own = match &v.settings {
        // The variant's own options win over its preset's, key by key.
        Some(p) => options::merge(engine.preset(p, &bin)?, &options(v)?),
        None => options(v)?,
    };
    // Its own my.cnf or postgresql.conf under all of them, and under what the run adds.
    let over = [own.clone(), l.extra_options.clone()].concat();
    let file = super::config_file::read(engine, v, Some(&bin), &over)?;
    spec.options = match &file {
        Some(f) => [f.options(), own].concat(),
        None => own,
    };
    spec.options = engine.fit_options(&bin, spec.options)?;
    spec.options.extend(l.extra_options.iter().cloned());
    spec.datadir_from = Some(l.datadir.to_path_buf());
    spec.wrapper = l.wrapper.clone();
    spec.ready_timeout = l.ready_timeout;
    spec.cpus = l.cpus.clone();
    let mut identity = build::identify(&bin);
    let sb = Sandbox::start(spec, bin, engine.launcher())
        .map_err(|e| match &file {
            Some(f) => f.explain(e),
            None => e,
        })
        .with_context(|| format!("starting variant '{}'", v.name))?;
    if let Some(p) = &v.settings {
        if let Some(why) = engine.preset_not_applied(p, sb.variables()).first() {
            anyhow::bail!(
                "variant '{}': settings '{p}' did not take effect: {why}",
                v.name
            );
        }
    }
    let pfs = engine.apply_variant(&sb, v, l.database)?;
    if identity.build_flags.is_none() {
        identity.build_flags = engine.compiled_with(&sb)?;
    }
    let prov = VariantProvenance {
        server_binary: sb.binaries().server.display().to_string(),
        server_sha256: identity.sha256.clone(),
        server_version: sb.binaries().version.clone(),
        options: sb.state().options.clone(),
        sql: v.sql.clone(),
        variables: sb.variables().clone(),
        pfs,
        build: Some(identity),
        placement: l.cpus.is_some().then(|| placement(&sb)).transpose()?,
        config_file: file.as_ref().map(|f| f.record()),
    };
    Ok((sb, prov))
}

/// Where the server's threads and this thread (which starts the client's) may run, as the
/// kernel reads them back.
fn placement(sb: &Sandbox) -> Result<Placement> {
    let pid = sb.pid().context("server not running")?;
    let threads = crate::probes::cpus::threads_of_tree(pid)?;
    let mut server: Vec<CpuList> = Vec::new();
    for (_, list) in &threads {
        if !server.contains(list) {
            server.push(list.clone());
        }
    }
    Ok(Placement {
        server,
        server_threads: threads.len() as u32,
        client: crate::probes::cpus::this_thread()?,
    })
}
