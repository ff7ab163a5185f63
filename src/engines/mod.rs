//! Stage 2: engines, the one place that knows which database server a build is and what that
//! means. One folder per engine family — `mysql/` (MariaDB and MySQL, their flavour
//! differences inside it) and `postgres/` — each behind [`Engine`], chosen once per server
//! build ([`of`]) or variant ([`of_variant`]).
//!
//! What a new engine must provide (the trait has no default bodies, and every match on
//! [`Flavour`] or [`Family`] here names each one, so a new engine does not compile until each
//! is answered):
//! - getting a server build: the system's, a binary tree given by path ([`Engine::system`],
//!   [`Engine::is_tree`], [`Engine::build_at`]), a fetched release (releases.rs, fetch.rs);
//! - how a sandbox runs it ([`Engine::launcher`]: defaults, datadir initialisation, launch
//!   arguments, accounts and passwords, readiness, read-back, the stop signal);
//! - settings presets, scenarios and their verification on a running server;
//! - what a study may combine with it ([`Engine::check_variant`], [`Engine::check_study`]);
//! - how cost mode counts its work ([`Engine::counting`], [`Engine::cost_options`]).
//!
//! server/ runs what an engine decides and never imports engines/; outside engines/ and
//! connection/ nothing asks which engine a server, variant or session is
//! (tests/architecture.rs).

// A match on an engine enum names every engine: a new one must be answered everywhere.
#![deny(clippy::wildcard_enum_match_arm)]

pub mod build;
pub mod catalogue;
pub mod config_file;
pub mod fetch;
pub mod from_source;
pub mod imported;
pub mod listing;
pub mod mysql;
pub mod plan;
pub mod postgres;
pub mod releases;
pub mod runs_here;
pub mod sandboxes;
pub mod sql_client;
pub mod study_checks;
pub mod trees;
pub mod variant;

use crate::builds::recipe::{FlagSet, Layout, Recipe};
use crate::cost::Counter;
use crate::results::study::{Study, Variant};
use crate::results::PfsState;
use crate::server::{Binaries, Launcher, Sandbox, SandboxSpec, ServerOption};
use anyhow::Result;
use std::path::Path;

pub use crate::results::{Family, Flavour, ServerBuild};

/// The sandbox's max_connections unless a variant or a study asks for more (every engine).
pub const DEFAULT_MAX_CONNECTIONS: u32 = 100;

/// One engine family.
pub trait Engine: Sync {
    fn family(&self) -> Family;
    /// How messages name it: `MySQL-family`, `PostgreSQL`.
    fn name(&self) -> &'static str;

    /// The system's packaged server of this engine.
    fn system(&self) -> Result<Binaries>;
    /// Whether `dir` holds a server tree of this engine.
    fn is_tree(&self, dir: &Path) -> bool;
    /// The server tree at `dir` (an existing directory).
    fn build_at(&self, dir: &Path) -> Result<Binaries>;

    /// How a sandbox runs this engine's server.
    fn launcher(&self) -> &'static dyn Launcher;

    /// The options of settings preset `name` for this build.
    fn preset(&self, name: &str, bin: &Binaries) -> Result<Vec<ServerOption>>;
    /// What preset `name` needs beyond its options' own read-back, judged from the variables.
    fn preset_not_applied(
        &self,
        name: &str,
        variables: &std::collections::BTreeMap<String, String>,
    ) -> Vec<String>;

    /// The names of this engine's scenarios.
    fn scenario_names(&self) -> &'static [&'static str];
    /// The server options of scenario `name`.
    fn scenario_options(&self, name: &str) -> Result<Vec<ServerOption>>;
    /// Before anything starts: whether scenario `name` exists on this build.
    fn scenario_available(&self, name: &str, bin: &Binaries) -> Result<()>;
    /// The options a server of this build starts with, fitted to what it has compiled in (or
    /// refused by name where they ask for what it lacks).
    fn fit_options(&self, bin: &Binaries, options: Vec<ServerOption>) -> Result<Vec<ServerOption>>;
    /// On the running server: run the variant's SQL, apply and verify its scenario, and read
    /// the instrumentation state a results document records (`None`: this engine has no
    /// performance_schema).
    fn apply_variant(&self, sb: &Sandbox, v: &Variant, database: &str) -> Result<Option<PfsState>>;
    /// On the running server: the flags it says it was compiled with, where it says
    /// (PostgreSQL's `pg_config` view); `None` where it does not.
    fn compiled_with(&self, sb: &Sandbox) -> Result<Option<Vec<String>>>;
    /// Options `connections` client connections need beyond the defaults, unless the
    /// variant's own options (`own`) set them.
    fn connection_options(&self, connections: u32, own: &[ServerOption]) -> Vec<ServerOption>;

    /// A variant's parts that this engine cannot run, named in one line.
    fn check_variant(&self, v: &Variant) -> Result<()>;
    /// The variant's own configuration file and its settings as this engine's server reads
    /// them on `bin` (`None`: before the server is known, to find the file's mistakes);
    /// `None` when it names none. The other engine's key is refused by name.
    fn config_settings(
        &self,
        v: &Variant,
        bin: Option<&Binaries>,
    ) -> Result<Option<(std::path::PathBuf, Vec<config_file::FileSetting>)>>;
    /// The study's parts (workloads, dataset) that this engine cannot run.
    fn check_study(&self, study: &Study) -> Result<()>;
    /// The server's own command-line client logged in to `sb` as its administrator, into
    /// `database`, reading SQL on its standard input and stopping at the first error.
    fn sql_client(&self, sb: &Sandbox, database: &str) -> Result<std::process::Command>;

    /// The flag sets a server of this engine can be built from source with.
    fn flag_sets(&self) -> &'static [FlagSet];
    /// The recipe of flag set `flags`, with the user's `extra` options, for the source in
    /// `layout` (refused when the source is not this engine's).
    fn recipe(&self, flags: &str, extra: &[String], layout: &Layout) -> Result<Recipe>;
    /// Whether `dir` holds a source tree of this engine.
    fn is_source(&self, dir: &Path) -> bool;
    /// A finished build's options (`options`, the flag set's and the user's) read back from
    /// what the build recorded (cmake's cache kept in `dir`, or `bin`'s own build info): the
    /// lines read back, or an error naming each option that did not take.
    fn read_back(&self, dir: &Path, options: &[String], bin: &Binaries) -> Result<Vec<String>>;
    /// The exact options of flag set `flags`, per kind of source (`MariaDB`, `MySQL`).
    fn flag_set_options(&self, flags: &str) -> Result<Vec<(&'static str, Vec<String>)>>;
    /// The version of this engine's recipes, which enters every build's key: a build recorded
    /// with another was made by other recipes.
    fn recipe_version(&self) -> u32;

    /// How cost mode counts a window's work on this engine's server.
    fn counting(&self) -> &'static dyn Counter;
    /// Server options cost mode needs under valgrind, given the variant's own.
    fn cost_options(&self, variant: &[ServerOption]) -> Vec<ServerOption>;
}

/// The engine of a server build of `flavour`.
pub fn of(flavour: Flavour) -> &'static dyn Engine {
    match flavour {
        Flavour::MariaDb | Flavour::MySql => &mysql::MySqlFamily,
        Flavour::Postgres => &postgres::Postgres,
    }
}

/// The engine of `family`.
pub fn of_family(family: Family) -> &'static dyn Engine {
    match family {
        Family::Mysql => &mysql::MySqlFamily,
        Family::Postgres => &postgres::Postgres,
    }
}

/// The names `--engine` takes.
pub const FAMILY_NAMES: [&str; 3] = ["mysql", "mariadb", "postgres"];

/// The family `--engine NAME` names (mariadb is the MySQL family's other name).
pub fn family_named(name: &str) -> Family {
    if name == "postgres" {
        Family::Postgres
    } else {
        Family::Mysql
    }
}

/// Every engine, in the order listings name them.
pub const ALL: [Family; 2] = [Family::Mysql, Family::Postgres];

/// A short label: `MariaDB 10.11.19` (the full string is in `version`).
pub fn label(bin: &Binaries) -> String {
    let name = match bin.flavour {
        Flavour::MariaDb => "MariaDB",
        Flavour::MySql => "MySQL",
        Flavour::Postgres => "PostgreSQL",
    };
    format!("{name} {}", bin.version_number())
}

/// The engine `name` names, for `psbench build`.
pub fn engine_named(name: &str) -> Result<&'static dyn Engine> {
    match name {
        "mariadb" | "mysql" => Ok(of_family(Family::Mysql)),
        "postgres" | "postgresql" => Ok(of_family(Family::Postgres)),
        _ => Err(crate::error::usage(format!(
            "psbench builds mariadb, mysql or postgres, not '{name}'"
        ))),
    }
}

/// The server build at `basedir` of whichever engine's tree it is, or the system's MariaDB.
pub fn locate(basedir: Option<&Path>) -> Result<Binaries> {
    locate_family(None, basedir)
}

/// The system's server of `family` (MariaDB's when `None`), or the tree at `basedir`, which
/// must be of `family` when one is given.
pub fn locate_family(family: Option<Family>, basedir: Option<&Path>) -> Result<Binaries> {
    let Some(dir) = basedir else {
        return of_family(family.unwrap_or(Family::Mysql)).system();
    };
    if !dir.is_dir() {
        return Err(crate::error::usage(format!(
            "basedir {} does not exist or is not a directory",
            dir.display()
        )));
    }
    // PostgreSQL's trees are told by bin/postgres; anything else is read as a MySQL-family
    // tree, which names what it lacks.
    let tree_engine = ALL
        .iter()
        .map(|f| of_family(*f))
        .find(|e| e.is_tree(dir))
        .unwrap_or(&mysql::MySqlFamily);
    let bin = tree_engine.build_at(dir)?;
    if let Some(want) = family.map(of_family) {
        if want.family() != tree_engine.family() {
            return Err(crate::error::usage(format!(
                "{} is {}, not a {} server",
                bin.server.display(),
                label(&bin),
                want.name()
            )));
        }
    }
    Ok(bin)
}

/// Locate the build `spec` asks for and start a sandbox of it.
pub fn start(spec: SandboxSpec) -> Result<Sandbox> {
    let bin = locate_family(spec.family, spec.basedir.as_deref())?;
    let launcher = of(bin.flavour).launcher();
    Sandbox::start(spec, bin, launcher)
}
