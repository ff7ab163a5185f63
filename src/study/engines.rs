//! Which engine a study's variants run, and what may be combined with it: a study runs one
//! engine family (MySQL/MariaDB or PostgreSQL) in all its variants; scenarios, settings
//! presets and workloads must belong to it.

use super::{pg_scenarios, scenarios};
use crate::error::usage;
use crate::results::study::{Study, Variant, WorkloadStep};
use crate::server::postgres::binaries::is_tree;
use crate::server::releases::Release;
use crate::server::Flavour;
use crate::workloads::pgbench::{is_pgbench, PgbenchOptions, QueryMode};
use crate::workloads::{workload_by_name, Workload};
use anyhow::Result;

/// Whether `v` runs PostgreSQL: `engine = "postgres"`, a `postgres-…` version or a basedir
/// holding a PostgreSQL tree.
pub fn is_postgres(v: &Variant) -> bool {
    v.engine.as_deref() == Some("postgres")
        || v.version
            .as_deref()
            .and_then(|r| Release::parse(r).ok())
            .is_some_and(|r| r.flavour == Flavour::Postgres)
        || v.basedir.as_deref().is_some_and(is_tree)
}

impl Study {
    /// True when the study's variants run PostgreSQL (checked to be all or none).
    pub fn is_postgres(&self) -> bool {
        self.variants.iter().any(is_postgres)
    }

    /// pgbench's scale of the dataset: `dataset.pgbench_scale`, 1 by default.
    pub fn pgbench_scale(&self) -> u32 {
        self.dataset.pgbench_scale.unwrap_or(1)
    }

    /// A pgbench step's options: the dataset's scale, then the step's `query_mode`.
    pub fn pgbench_options(&self, w: &WorkloadStep) -> Result<PgbenchOptions> {
        let mut o = PgbenchOptions {
            scale: self.pgbench_scale(),
            ..PgbenchOptions::default()
        };
        if !is_pgbench(&w.workload) {
            return Ok(o);
        }
        for (k, v) in &w.options {
            match (k.replace('-', "_").as_str(), v.as_str()) {
                ("query_mode", Some("simple")) => o.query_mode = QueryMode::Simple,
                ("query_mode", Some("prepared")) => o.query_mode = QueryMode::Prepared,
                ("query_mode", _) => {
                    return Err(usage("query_mode is \"simple\" or \"prepared\""));
                }
                _ => {
                    return Err(usage(format!(
                        "unknown workload option '{k}' (pgbench's steps take query_mode; \
                         the scale is dataset.pgbench_scale)"
                    )))
                }
            }
        }
        Ok(o)
    }

    /// The workload of step `w`, sysbench's or pgbench's, with its options.
    pub fn workload_of(&self, w: &WorkloadStep) -> Result<Box<dyn Workload>> {
        workload_by_name(
            &w.workload,
            &self.workload_options(w)?,
            &self.pgbench_options(w)?,
        )
    }
}

/// The engine checks of a parsed study; `Ok` when everything belongs to one engine.
pub fn check(study: &Study) -> Result<()> {
    for v in &study.variants {
        match v.engine.as_deref() {
            None | Some("postgres") => {}
            Some(other) => {
                return Err(usage(format!(
                    "variant '{}': engine = '{other}': the only engine to name is postgres \
                     (MySQL-family servers are the default, or named by basedir or version)",
                    v.name
                )))
            }
        }
        if v.engine.is_some() && (v.basedir.is_some() || v.version.is_some()) && !is_postgres(v) {
            return Err(usage(format!(
                "variant '{}': engine = 'postgres' but its server is not PostgreSQL",
                v.name
            )));
        }
    }
    let pg: Vec<&str> = study
        .variants
        .iter()
        .filter(|v| is_postgres(v))
        .map(|v| v.name.as_str())
        .collect();
    if pg.is_empty() {
        return mysql_only(study);
    }
    if pg.len() != study.variants.len() {
        return Err(usage(format!(
            "a study runs one engine: variants {} run PostgreSQL, the others a MySQL-family server",
            pg.join(", ")
        )));
    }
    for v in &study.variants {
        if let Some(sc) = &v.scenario {
            if !pg_scenarios::is_pg_scenario(sc) {
                return Err(usage(format!(
                    "variant '{}': scenario '{sc}' is not a PostgreSQL scenario; known: {}",
                    v.name,
                    pg_scenarios::NAMES.join(", ")
                )));
            }
        }
        if v.settings.is_some() {
            return Err(usage(format!(
                "variant '{}': settings presets are MySQL options; give PostgreSQL settings in options",
                v.name
            )));
        }
        if v.dataset.is_some() {
            return Err(usage(format!(
                "variant '{}': data regimes are sized from a buffer pool: MySQL-family only so far",
                v.name
            )));
        }
    }
    if study.dataset.preset.is_some() {
        return Err(usage(
            "dataset.preset: data regimes are sized from a buffer pool: MySQL-family only so far",
        ));
    }
    Ok(())
}

/// A MySQL-family study: no PostgreSQL scenarios or pgbench workloads.
fn mysql_only(study: &Study) -> Result<()> {
    for v in &study.variants {
        if let Some(sc) = &v.scenario {
            if pg_scenarios::is_pg_scenario(sc) {
                return Err(usage(format!(
                    "variant '{}': scenario '{sc}' is PostgreSQL's; this variant runs a MySQL-family server",
                    v.name
                )));
            }
            scenarios::scenario(sc).map_err(|e| usage(format!("variant '{}': {e}", v.name)))?;
        }
    }
    if let Some(w) = study.workloads.iter().find(|w| is_pgbench(&w.workload)) {
        return Err(usage(format!(
            "workload '{}' is pgbench's and runs on PostgreSQL only (a variant's engine = \"postgres\")",
            w.label()
        )));
    }
    if study.dataset.pgbench_scale.is_some() {
        return Err(usage("dataset.pgbench_scale is for PostgreSQL studies"));
    }
    Ok(())
}
