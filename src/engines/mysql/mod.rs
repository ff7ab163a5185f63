//! MariaDB and MySQL: one engine family, one protocol; the flavours differ in their defaults,
//! how a datadir is initialised, performance_schema's default consumers and MariaDB's
//! userstat. What this folder provides is what every engine must (engines/mod.rs): finding a
//! build (binaries.rs), running it in a sandbox (launch.rs, access.rs, datadir.rs,
//! errorlog.rs, options.rs), settings presets (presets.rs), the performance_schema scenarios
//! and their verification (scenarios.rs), the study parts it runs, and how cost mode counts
//! (cost.rs).

pub mod access;
pub mod binaries;
pub mod cnf;
pub mod compiled_out;
pub mod cost;
pub mod datadir;
pub mod errorlog;
pub mod launch;
pub mod options;
pub mod presets;
pub mod published_scenarios;
pub mod recipe;
pub mod scenarios;

use super::Engine;
use crate::builds::recipe::{FlagSet, Layout, Recipe};
use crate::cost::Counter;
use crate::error::usage;
use crate::results::study::{Study, Variant};
use crate::results::{Family, PfsState};
use crate::server::{Binaries, Launcher, Sandbox, ServerOption};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use scenarios::PfsFlavour;
use std::collections::BTreeMap;
use std::path::Path;

/// Prepared statements one client connection may hold: sysbench's read-write prepares 2 + 9
/// per table; this covers 14 tables.
const STATEMENTS_PER_CONNECTION: u64 = 128;
/// The servers' own default of max_prepared_stmt_count, and MySQL's largest value.
const DEFAULT_PREPARED_STATEMENTS: u64 = 16_382;
const MOST_PREPARED_STATEMENTS: u64 = 4_194_304;

/// MariaDB and MySQL.
pub struct MySqlFamily;

impl Engine for MySqlFamily {
    fn family(&self) -> Family {
        Family::Mysql
    }

    fn name(&self) -> &'static str {
        "MySQL-family"
    }

    fn system(&self) -> Result<Binaries> {
        binaries::system()
    }

    fn is_tree(&self, dir: &Path) -> bool {
        binaries::is_tree(dir)
    }

    fn build_at(&self, dir: &Path) -> Result<Binaries> {
        binaries::from_tree(dir)
    }

    fn launcher(&self) -> &'static dyn Launcher {
        &launch::MySqlLauncher
    }

    fn preset(&self, name: &str, bin: &Binaries) -> Result<Vec<ServerOption>> {
        presets::options(name, bin.flavour)
    }

    fn preset_not_applied(&self, name: &str, variables: &BTreeMap<String, String>) -> Vec<String> {
        presets::not_applied(name, variables)
    }

    fn scenario_names(&self) -> &'static [&'static str] {
        &scenarios::ALL
    }

    fn scenario_options(&self, name: &str) -> Result<Vec<ServerOption>> {
        Ok(scenarios::scenario(name)?.options())
    }

    fn scenario_available(&self, name: &str, bin: &Binaries) -> Result<()> {
        let sc = scenarios::scenario(name)?;
        sc.available_on(PfsFlavour::of(bin.flavour, &bin.version))?;
        if sc.pfs && !compiled_out::has_pfs(bin) {
            return Err(usage(format!(
                "scenario '{name}' needs performance_schema, which {} ({}) has compiled out",
                super::label(bin),
                bin.server.display()
            )));
        }
        let out = compiled_out::psi_classes_out(bin);
        let missing: Vec<&str> = sc
            .classes_needed()
            .into_iter()
            .filter(|c| out.iter().any(|o| o == c))
            .collect();
        if !missing.is_empty() {
            return Err(usage(format!(
                "scenario '{name}' measures instruments of class {}, which {} compiled out (DISABLE_PSI_{}=ON): measure ps_off, default or all_enabled on it",
                missing.join(", "),
                super::label(bin),
                missing.join("=ON, DISABLE_PSI_")
            )));
        }
        Ok(())
    }

    fn fit_options(&self, bin: &Binaries, options: Vec<ServerOption>) -> Result<Vec<ServerOption>> {
        if compiled_out::has_pfs(bin) {
            return Ok(options);
        }
        compiled_out::fit_options(options, &super::label(bin))
    }

    /// The variant's SQL as root, then its scenario verified exactly (unless its SQL may have
    /// changed performance_schema's setup), else performance_schema's state as it is.
    fn apply_variant(
        &self,
        sb: &Sandbox,
        v: &Variant,
        _database: &str,
    ) -> Result<Option<PfsState>> {
        let mut admin = sb.admin_endpoint().connect()?;
        let scenario = v.scenario.as_deref().map(scenarios::scenario).transpose()?;
        if let Some(sc) = &scenario {
            sc.apply_sql(&mut admin)
                .with_context(|| format!("variant '{}'", v.name))?;
        }
        for stmt in &v.sql {
            admin
                .query_drop(stmt)
                .with_context(|| format!("variant '{}': running `{stmt}`", v.name))?;
        }
        let bin = sb.binaries();
        let no_pfs_build = matches!(
            &super::build::identify(bin).origin,
            crate::results::Origin::Build { flags, .. } if flags == "no_pfs"
        );
        if !compiled_out::has_pfs(bin) {
            // The scenario, if any, asked for performance_schema off (one that needs it was
            // refused before the start): what this server is, checked here.
            compiled_out::verify(&mut admin).with_context(|| format!("variant '{}'", v.name))?;
            return Ok(Some(PfsState {
                compiled_out: true,
                ..PfsState::default()
            }));
        }
        if no_pfs_build && bin.flavour == crate::results::Flavour::MariaDb {
            anyhow::bail!(
                "variant '{}': its build has flag set no_pfs, but {} lists --performance-schema: \
                 performance_schema was compiled in",
                v.name,
                bin.server.display()
            );
        }
        let on = PfsFlavour::of(bin.flavour, &bin.version);
        let pfs = match &scenario {
            Some(sc) if v.sql.is_empty() => sc
                .verify(&mut admin, on)
                .with_context(|| format!("variant '{}'", v.name))?,
            _ => PfsState::read(&mut admin)?,
        };
        Ok(Some(pfs))
    }

    /// MariaDB and MySQL do not say on a running server (a build's CMakeCache.txt does).
    fn compiled_with(&self, _sb: &Sandbox) -> Result<Option<Vec<String>>> {
        Ok(None)
    }

    /// max_prepared_stmt_count for the connections' prepared statements.
    fn connection_options(&self, connections: u32, own: &[ServerOption]) -> Vec<ServerOption> {
        let statements =
            (connections as u64 * STATEMENTS_PER_CONNECTION).min(MOST_PREPARED_STATEMENTS);
        let set = own
            .iter()
            .any(|o| o.base_key() == "max_prepared_stmt_count");
        if statements > DEFAULT_PREPARED_STATEMENTS && !set {
            return vec![ServerOption::new(
                "max_prepared_stmt_count",
                &statements.to_string(),
            )];
        }
        Vec::new()
    }

    fn flag_sets(&self) -> &'static [FlagSet] {
        recipe::FLAG_SETS
    }

    fn recipe(&self, flags: &str, extra: &[String], layout: &Layout) -> Result<Recipe> {
        recipe::recipe(flags, extra, layout)
    }

    fn is_source(&self, dir: &Path) -> bool {
        recipe::flavour_and_release(dir).is_ok()
    }

    fn read_back(&self, dir: &Path, options: &[String], _bin: &Binaries) -> Result<Vec<String>> {
        recipe::read_back(dir, options)
    }

    fn recipe_version(&self) -> u32 {
        recipe::RECIPE_VERSION
    }

    fn flag_set_options(&self, flags: &str) -> Result<Vec<(&'static str, Vec<String>)>> {
        Ok(vec![
            (
                "MariaDB",
                recipe::options(crate::results::Flavour::MariaDb, flags)?,
            ),
            (
                "MySQL",
                recipe::options(crate::results::Flavour::MySql, flags)?,
            ),
        ])
    }

    fn counting(&self) -> &'static dyn Counter {
        &crate::cost::ServingThread
    }

    fn cost_options(&self, variant: &[ServerOption]) -> Vec<ServerOption> {
        cost::valgrind_options(variant)
    }

    fn config_settings(
        &self,
        v: &Variant,
        bin: Option<&Binaries>,
    ) -> Result<Option<(std::path::PathBuf, Vec<super::config_file::FileSetting>)>> {
        cnf::of_variant(v, bin)
    }

    fn check_variant(&self, v: &Variant) -> Result<()> {
        // The file's mistakes, with file and line, before anything starts.
        self.config_settings(v, None)?;
        if let Some(sc) = &v.scenario {
            let scenario =
                scenarios::scenario(sc).map_err(|e| usage(format!("variant '{}': {e}", v.name)))?;
            let no_pfs = v.build.as_ref().filter(|b| b.flags == "no_pfs");
            // MySQL's no_pfs keeps performance_schema and compiles out its instrument
            // classes: a scenario measuring one of them is refused, the rest measure what
            // is left. MariaDB's leaves performance_schema out altogether.
            let mysql = no_pfs.is_some_and(|b| {
                b.engine.as_deref() == Some("mysql") || b.source.starts_with("debian:mysql")
            });
            if let Some(b) = no_pfs.filter(|_| mysql) {
                let needs = scenario.classes_needed();
                if !needs.is_empty() {
                    return Err(usage(format!(
                        "variant '{}': scenario '{sc}' measures instruments of class {}, which flags = \"no_pfs\" of {} compiles out: measure ps_off, default or all_enabled on it",
                        v.name,
                        needs.join(", "),
                        b.source
                    )));
                }
            } else if let Some(b) = no_pfs.filter(|_| scenario.pfs) {
                return Err(usage(format!(
                    "variant '{}': scenario '{sc}' needs performance_schema, and its build (flags = \"{}\" of {}) compiles it out",
                    v.name, b.flags, b.source
                )));
            }
        }
        Ok(())
    }

    /// No workload a MySQL-family server cannot run (pgbench's), and no pgbench scale:
    /// pgbench's tables are PostgreSQL's.
    fn sql_client(&self, sb: &Sandbox, database: &str) -> Result<std::process::Command> {
        // MySQL's test trees ship no client: the system's MariaDB client speaks to them.
        let client = super::sql_client::find(
            sb.binaries(),
            &["mariadb", "mysql"],
            &["/usr/bin", "/usr/local/bin"],
        )?;
        let mut c = std::process::Command::new(client);
        c.arg(format!(
            "--defaults-file={}",
            sb.state().client_defaults().display()
        ))
        .arg("--batch")
        .arg(format!("--database={database}"));
        Ok(c)
    }

    fn check_study(&self, study: &Study) -> Result<()> {
        let dialect = crate::connection::Dialect::mysql();
        if let Some(why) = study
            .workloads
            .iter()
            .find_map(|w| crate::workloads::kinds::of(w).refused_by(w, dialect))
        {
            return Err(usage(why));
        }
        if study.dataset.pgbench_scale.is_some() {
            return Err(usage("dataset.pgbench_scale is for PostgreSQL studies"));
        }
        Ok(())
    }
}
