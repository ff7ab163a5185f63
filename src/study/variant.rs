//! Starting a variant's server: its scenario and options, a fresh copy of the prepared
//! datadir, its runtime SQL, and the check that it all took effect.

use super::file::Variant;
use super::{engines, pg_scenarios, scenarios};
use crate::probes::PfsState;
use crate::results::VariantProvenance;
use crate::server::options::{self, DEFAULT_MAX_CONNECTIONS};
use crate::server::presets;
use crate::server::{Home, Sandbox, SandboxSpec, ServerOption};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How to start a variant.
pub struct Launch<'a> {
    pub variant: &'a Variant,
    pub home: &'a Home,
    /// Unique per study run, so that two studies never share a sandbox.
    pub sandbox_name: String,
    pub datadir: &'a Path,
    /// Extra options (cost mode's valgrind needs) and the wrapper program.
    pub extra_options: Vec<ServerOption>,
    pub wrapper: Vec<String>,
    pub ready_timeout: Duration,
}

/// The options a variant asks for: its scenario's, then its own.
pub fn options(v: &Variant) -> Result<Vec<ServerOption>> {
    let mut opts = match &v.scenario {
        Some(s) if pg_scenarios::is_pg_scenario(s) => pg_scenarios::scenario(s)?.options(),
        Some(s) => scenarios::scenario(s)?.options(),
        None => Vec::new(),
    };
    for o in &v.options {
        opts.push(ServerOption::parse(o)?);
    }
    Ok(opts)
}

/// Connections beside the clients: the study's own (probes, status reads, the Insert
/// Benchmark's admin connection) and one for a person looking in.
const SPARE_CONNECTIONS: u32 = 8;

/// Prepared statements one client connection may hold: sysbench's read-write prepares 2 + 9
/// per table; this covers 14 tables.
const STATEMENTS_PER_CONNECTION: u64 = 128;
/// The servers' own default of max_prepared_stmt_count, and MySQL's largest value.
const DEFAULT_PREPARED_STATEMENTS: u64 = 16_382;
const MOST_PREPARED_STATEMENTS: u64 = 4_194_304;

/// What `clients` client connections need of the server beyond the sandbox's defaults:
/// max_connections, and max_prepared_stmt_count for their prepared statements. A setting the
/// variant makes itself stands (and a cell beyond it fails naming it).
pub fn connection_options(v: &Variant, clients: u32) -> Result<Vec<ServerOption>> {
    let own = options(v)?;
    let sets = |key: &str| own.iter().any(|o| o.base_key() == key);
    let mut out = Vec::new();
    let connections = clients + SPARE_CONNECTIONS;
    if connections > DEFAULT_MAX_CONNECTIONS && !sets("max_connections") {
        out.push(ServerOption::new(
            "max_connections",
            &connections.to_string(),
        ));
    }
    // PostgreSQL has no limit on a session's prepared statements.
    let statements = (connections as u64 * STATEMENTS_PER_CONNECTION).min(MOST_PREPARED_STATEMENTS);
    if !engines::is_postgres(v)
        && statements > DEFAULT_PREPARED_STATEMENTS
        && !sets("max_prepared_stmt_count")
    {
        out.push(ServerOption::new(
            "max_prepared_stmt_count",
            &statements.to_string(),
        ));
    }
    Ok(out)
}

/// Start, apply, verify. An error here means the variant did not take effect: it stops the study.
pub fn start(l: &Launch) -> Result<(Sandbox, VariantProvenance)> {
    let v = l.variant;
    if engines::is_postgres(v) {
        return start_postgres(l);
    }
    // Located once (it runs `mysqld --version`), only when the scenario or preset needs it.
    let bin = if v.scenario.is_some() || v.settings.is_some() {
        Some(crate::server::Binaries::locate(v.basedir.as_deref())?)
    } else {
        None
    };
    if let (Some(s), Some(bin)) = (&v.scenario, &bin) {
        // Before the server starts: a scenario its flavour lacks is named, not left to the
        // server's "unknown variable".
        scenarios::scenario(s)?
            .available_on(scenarios::PfsFlavour::of(bin.flavour, &bin.version))
            .map_err(|e| crate::error::usage(format!("variant '{}': {e}", v.name)))?;
    }
    let mut spec = SandboxSpec::new(&l.sandbox_name, l.home.clone());
    spec.basedir = v.basedir.clone();
    spec.options = match (&v.settings, &bin) {
        // The variant's own options win over its preset's, key by key.
        (Some(p), Some(bin)) => options::merge(presets::options(p, bin.flavour)?, &options(v)?),
        _ => options(v)?,
    };
    spec.options.extend(l.extra_options.iter().cloned());
    spec.datadir_from = Some(l.datadir.to_path_buf());
    spec.wrapper = l.wrapper.clone();
    spec.ready_timeout = l.ready_timeout;
    let sb = Sandbox::start(spec).with_context(|| format!("starting variant '{}'", v.name))?;
    if let Some(p) = &v.settings {
        if let Some(why) = presets::not_applied(p, sb.variables()).first() {
            anyhow::bail!(
                "variant '{}': settings '{p}' did not take effect: {why}",
                v.name
            );
        }
    }
    let mut admin = sb.admin_endpoint().connect()?;
    for stmt in &v.sql {
        admin
            .query_drop(stmt)
            .with_context(|| format!("variant '{}': running `{stmt}`", v.name))?;
    }
    let pfs = match &v.scenario {
        Some(s) if v.sql.is_empty() => scenarios::scenario(s)?
            .verify(
                &mut admin,
                scenarios::PfsFlavour::of(sb.binaries().flavour, &sb.binaries().version),
            )
            .with_context(|| format!("variant '{}'", v.name))?,
        _ => PfsState::read(&mut admin)?,
    };
    let prov = provenance(&sb, v, pfs);
    Ok((sb, prov))
}

/// What ran: the binary, its version, every option, the SQL, the variables read back.
fn provenance(sb: &Sandbox, v: &Variant, pfs: PfsState) -> VariantProvenance {
    VariantProvenance {
        server_binary: sb.binaries().server.display().to_string(),
        server_sha256: String::new(),
        server_version: sb.binaries().version.clone(),
        options: sb.state().options.clone(),
        sql: v.sql.clone(),
        variables: sb.variables().clone(),
        pfs,
    }
}

/// A PostgreSQL variant: its settings (read back by the sandbox), then in the benchmark
/// database its SQL and its scenario's extension, verified.
fn start_postgres(l: &Launch) -> Result<(Sandbox, VariantProvenance)> {
    let v = l.variant;
    let mut spec = SandboxSpec::new(&l.sandbox_name, l.home.clone());
    spec.basedir = v.basedir.clone();
    spec.flavour = Some(crate::server::Flavour::Postgres);
    spec.options = options(v)?;
    spec.options.extend(l.extra_options.iter().cloned());
    spec.datadir_from = Some(l.datadir.to_path_buf());
    spec.wrapper = l.wrapper.clone();
    spec.ready_timeout = l.ready_timeout;
    let sb = Sandbox::start(spec).with_context(|| format!("starting variant '{}'", v.name))?;
    let ep = sb
        .admin_endpoint()
        .with_database(Some(super::dataset::DATABASE));
    let mut admin = ep.pg().connect()?;
    for stmt in &v.sql {
        admin
            .run(stmt)
            .with_context(|| format!("variant '{}': running `{stmt}`", v.name))?;
    }
    if let Some(s) = &v.scenario {
        pg_scenarios::scenario(s)?
            .apply_and_verify(&mut admin)
            .with_context(|| format!("variant '{}'", v.name))?;
    }
    // PostgreSQL has no performance_schema: its state is the empty one.
    let prov = provenance(&sb, v, PfsState::default());
    Ok((sb, prov))
}

/// A sandbox name from the study's process and the variant (letters, digits, `-`, `_`, `.`).
pub fn sandbox_name(prefix: &str, variant: &str) -> String {
    let clean: String = variant
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(28)
        .collect();
    format!("{prefix}-{clean}")
}

/// Remove a stopped study sandbox's directory (its datadir copy is large).
pub fn discard(home: &Home, name: &str) {
    let dir: PathBuf = home.sandbox_dir(name);
    let _ = std::fs::remove_dir_all(dir);
}
