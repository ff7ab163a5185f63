//! PostgreSQL. What this folder provides is what every engine must (engines/mod.rs): finding
//! a build (binaries.rs: Debian's trees or any with bin/postgres and bin/initdb), running it
//! in a sandbox (launch.rs: every setting on the command line, its own hba file; cluster.rs:
//! initdb once per binary, copied per sandbox; secure.rs: this start's password), whether the
//! settings took effect (settings.rs, from pg_settings), its instrumentation as scenarios
//! (scenarios.rs), the study parts it runs, and how cost mode counts (each backend from the
//! dump it writes at exit: cost::ExitDumps).

pub mod binaries;
pub mod cluster;
pub mod conf;
pub mod launch;
pub mod recipe;
pub mod scenarios;
pub mod secure;
pub mod settings;

use super::Engine;
use crate::builds::recipe::{FlagSet, Layout, Recipe};
use crate::cost::Counter;
use crate::error::usage;
use crate::results::study::{Study, Variant};
use crate::results::{Family, PfsState};
use crate::server::{Binaries, Launcher, Sandbox, ServerOption};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// The superuser initdb creates and psbench connects as.
pub const SUPERUSER: &str = "postgres";

/// Settings the sandbox sets itself; a variant may not move them.
pub const RESERVED: &[&str] = &[
    "data_directory",
    "config_file",
    "hba_file",
    "ident_file",
    "external_pid_file",
    "port",
    "listen_addresses",
    "unix_socket_directories",
    "unix_socket_permissions",
    "unix_socket_group",
    "logging_collector",
    "ssl",
];

/// PostgreSQL.
pub struct Postgres;

impl Engine for Postgres {
    fn family(&self) -> Family {
        Family::Postgres
    }

    fn name(&self) -> &'static str {
        "PostgreSQL"
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
        &launch::PgLauncher
    }

    fn preset(&self, _name: &str, _bin: &Binaries) -> Result<Vec<ServerOption>> {
        Err(usage(
            "settings presets are MySQL options; give PostgreSQL settings in options",
        ))
    }

    fn preset_not_applied(&self, _name: &str, _vars: &BTreeMap<String, String>) -> Vec<String> {
        Vec::new()
    }

    fn scenario_names(&self) -> &'static [&'static str] {
        scenarios::NAMES
    }

    fn scenario_options(&self, name: &str) -> Result<Vec<ServerOption>> {
        Ok(scenarios::scenario(name)?.options())
    }

    fn fit_options(
        &self,
        _bin: &Binaries,
        options: Vec<ServerOption>,
    ) -> Result<Vec<ServerOption>> {
        Ok(options)
    }

    fn scenario_available(&self, name: &str, _bin: &Binaries) -> Result<()> {
        scenarios::scenario(name).map(|_| ())
    }

    /// In the benchmark database: the variant's SQL, then its scenario's extension, verified.
    /// (Its settings were read back when the sandbox started.)
    fn apply_variant(&self, sb: &Sandbox, v: &Variant, database: &str) -> Result<Option<PfsState>> {
        let ep = sb.admin_endpoint().with_database(Some(database));
        let mut admin = ep.pg().connect()?;
        for stmt in &v.sql {
            admin
                .run(stmt)
                .with_context(|| format!("variant '{}': running `{stmt}`", v.name))?;
        }
        if let Some(s) = &v.scenario {
            scenarios::scenario(s)?
                .apply_and_verify(&mut admin)
                .with_context(|| format!("variant '{}'", v.name))?;
        }
        // No performance_schema.
        Ok(None)
    }

    /// A PostgreSQL session's prepared statements have no server-wide limit.
    fn connection_options(&self, _connections: u32, _own: &[ServerOption]) -> Vec<ServerOption> {
        Vec::new()
    }

    /// The configure line and CFLAGS compiled into the server (`pg_config`): how a fetched
    /// release was built, by whoever packaged it.
    fn compiled_with(&self, sb: &Sandbox) -> Result<Option<Vec<String>>> {
        let mut admin = sb.admin_endpoint().pg().connect()?;
        let rows = admin
            .query("SELECT name || '=' || setting FROM pg_config WHERE name IN ('CFLAGS', 'CONFIGURE') ORDER BY name")
            .context("reading the pg_config view")?;
        Ok(Some(
            rows.into_iter()
                .filter_map(|r| r.into_iter().next().flatten())
                .collect(),
        ))
    }

    fn flag_sets(&self) -> &'static [FlagSet] {
        recipe::FLAG_SETS
    }

    fn recipe(&self, flags: &str, extra: &[String], layout: &Layout) -> Result<Recipe> {
        recipe::recipe(flags, extra, layout)
    }

    fn is_source(&self, dir: &Path) -> bool {
        recipe::release(dir).is_ok()
    }

    fn read_back(&self, dir: &Path, options: &[String], bin: &Binaries) -> Result<Vec<String>> {
        recipe::read_back(
            &crate::builds::BuildRecord::tree(dir),
            &bin.lib_dirs,
            options,
        )
    }

    fn recipe_version(&self) -> u32 {
        recipe::RECIPE_VERSION
    }

    fn flag_set_options(&self, flags: &str) -> Result<Vec<(&'static str, Vec<String>)>> {
        Ok(vec![("PostgreSQL", recipe::options(flags)?)])
    }

    /// Each backend counted from the dump it writes at exit: a forked backend cannot be
    /// reached by callgrind_control.
    fn counting(&self) -> &'static dyn Counter {
        &crate::cost::ExitDumps
    }

    /// PostgreSQL runs under valgrind as it is.
    fn cost_options(&self, _variant: &[ServerOption]) -> Vec<ServerOption> {
        Vec::new()
    }

    fn config_settings(
        &self,
        v: &Variant,
        _bin: Option<&Binaries>,
    ) -> Result<Option<(std::path::PathBuf, Vec<super::config_file::FileSetting>)>> {
        conf::of_variant(v)
    }

    fn check_variant(&self, v: &Variant) -> Result<()> {
        // The file's mistakes, with file and line, before anything starts.
        self.config_settings(v, None)?;
        if let Some(sc) = &v.scenario {
            if !scenarios::is_pg_scenario(sc) {
                return Err(usage(format!(
                    "variant '{}': scenario '{sc}' is not a PostgreSQL scenario{} (known: {})",
                    v.name,
                    crate::error::suggestion(sc, scenarios::NAMES.iter().copied()),
                    scenarios::NAMES.join(", ")
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
        Ok(())
    }

    fn sql_client(&self, sb: &Sandbox, database: &str) -> Result<std::process::Command> {
        let client = super::sql_client::find(
            sb.binaries(),
            &["psql"],
            &["/usr/lib/postgresql/15/bin", "/usr/bin"],
        )?;
        let e = sb.state().pg_tcp_endpoint();
        let mut c = std::process::Command::new(client);
        c.args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", &e.host])
            .args(["-p", &e.port.to_string(), "-U", &e.user, "-d", database]);
        if let Some(p) = &e.password {
            c.env("PGPASSWORD", p);
        }
        Ok(c)
    }

    fn check_study(&self, study: &Study) -> Result<()> {
        if study.dataset.preset.is_some() {
            return Err(usage(
                "dataset.preset: data regimes are sized from a buffer pool: MySQL-family only so far",
            ));
        }
        Ok(())
    }
}
