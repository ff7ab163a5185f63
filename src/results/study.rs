//! The study as run, recorded in its results document: variants, dataset, workload steps,
//! thread counts, rounds and limits. Parsing and checking a study file is study/'s job
//! (study/file.rs); every key is described in docs/study-file.md.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub use super::step::WorkloadStep;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Wall-clock throughput with real concurrency (interleaved rounds, intervals).
    #[default]
    Throughput,
    /// Instructions per transaction under callgrind: deterministic path length, no contention.
    Cost,
    /// Cost over every variant and throughput over `throughput_variants`.
    Both,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The variant every other is compared with; default: the first.
    #[serde(default)]
    pub base: Option<String>,
    /// Further comparisons beyond every variant against the base, each `[new, base]`
    /// (PS default against PS off within each regime, say).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<[String; 2]>,
    /// Smallest relative change that is called (0.05 = 5%, as the published reports colour it).
    #[serde(default = "default_threshold")]
    pub threshold: f64,
    #[serde(default = "default_rounds")]
    pub rounds: u32,
    /// Measured seconds per cell.
    #[serde(default = "default_duration")]
    pub duration: f64,
    /// Seconds of load before each measured cell, not measured.
    #[serde(default = "default_warmup")]
    pub warmup: f64,
    #[serde(default = "default_threads")]
    pub threads: Vec<u32>,
    #[serde(default)]
    pub mode: Mode,
    /// How throughput cells run: each variant's turn in a round (`turns`), or every variant's
    /// server up at once with the load alternating between them in slices (`alternate`).
    #[serde(default, skip_serializing_if = "Schedule::is_turns")]
    pub schedule: Schedule,
    /// With `schedule = "alternate"`: measured seconds per slice (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slice: Option<f64>,
    /// With `mode = "both"`: the variants also measured in throughput mode (default: all).
    #[serde(default)]
    pub throughput_variants: Option<Vec<String>>,
    /// With cost mode: the workload steps measured under callgrind (default: all).
    #[serde(default)]
    pub cost_workloads: Option<Vec<String>>,
    /// With throughput mode: the workload entries measured in throughput rounds (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_workloads: Option<Vec<String>>,
    #[serde(default)]
    pub dataset: Dataset,
    #[serde(default)]
    pub cost: CostSettings,
    #[serde(default)]
    pub limits: Limits,
    /// `profile = true` or a `[profile]` table: perf samples of the server in measured windows.
    #[serde(default)]
    pub profile: super::profile_settings::ProfileSettings,
    /// How long the study takes at its own size on the machine its figures come from, in
    /// minutes (`psbench studies` prints it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_minutes: Option<f64>,
    /// Locate each change a sweep's counts show between two releases by measuring the
    /// releases between them, bisecting (docs/study-file.md#locating-a-change).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub locate: bool,
    /// Minutes its first run spends building servers from source (`build` variants), beyond
    /// `expected_minutes`; later runs find the builds in the cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_build_minutes: Option<f64>,
    /// What `--full` changes beyond every variant in both modes at 5 rounds: seed-sized runs
    /// for a bigger machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full: Option<FullSize>,
    /// `cpus = { server = "0-15", client = "16-31" }`: the CPUs every server the study starts
    /// and psbench's own client run on.
    #[serde(default, skip_serializing_if = "CpuPlacement::is_empty")]
    pub cpus: CpuPlacement,
    /// Figures a published study reported, for the report to set this study's beside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<super::published::Published>,
    #[serde(rename = "variant", default)]
    pub variants: Vec<Variant>,
    #[serde(rename = "workload", default)]
    pub workloads: Vec<WorkloadStep>,
}

/// How a round's throughput cells are run (docs/study-file.md#schedule).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// One variant's server at a time: all its cells, then the next variant's.
    #[default]
    Turns,
    /// Every variant's server up at once; each cell's measured time is cut into slices that
    /// alternate between the servers (A B B A …), so that slow drift hits every variant alike.
    Alternate,
}

impl Schedule {
    fn is_turns(&self) -> bool {
        *self == Schedule::Turns
    }
}

/// Seconds per slice when a study alternates and does not say.
pub const DEFAULT_SLICE_S: f64 = 1.0;

impl Study {
    /// Measured seconds per slice of an alternating study: `slice`, else 1 s or the whole
    /// measured time when that is shorter (`--time 0.5` on a built-in study).
    pub fn slice_s(&self) -> f64 {
        self.slice.unwrap_or(DEFAULT_SLICE_S.min(self.duration))
    }
}

fn default_threshold() -> f64 {
    0.05
}
fn default_rounds() -> u32 {
    3
}
fn default_duration() -> f64 {
    10.0
}
fn default_warmup() -> f64 {
    2.0
}
fn default_threads() -> Vec<u32> {
    vec![1]
}

/// A study's seed-sized settings (`--full`); each replaces the study's own when given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FullSize {
    #[serde(default)]
    pub rounds: Option<u32>,
    #[serde(default)]
    pub duration: Option<f64>,
    #[serde(default)]
    pub warmup: Option<f64>,
    #[serde(default)]
    pub threads: Option<Vec<u32>>,
    #[serde(default)]
    pub tables: Option<u32>,
    #[serde(default)]
    pub table_size: Option<u32>,
    /// The buffer pool of every variant that sets its own (`4G`).
    #[serde(default)]
    pub buffer_pool: Option<String>,
}

/// Where a study's servers and client run; either may be left to the kernel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuPlacement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<super::cpus::CpuList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<super::cpus::CpuList>,
}

impl CpuPlacement {
    pub fn is_empty(&self) -> bool {
        self.server.is_none() && self.client.is_none()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dataset {
    /// `cached` (fits the buffer pool, read into it first) or `io-bound` (at least 4× the
    /// buffer pool, read past the OS page cache): every variant's regime unless it names its own.
    #[serde(default)]
    pub preset: Option<String>,
    #[serde(default)]
    pub tables: Option<u32>,
    #[serde(default)]
    pub table_size: Option<u32>,
    /// PostgreSQL: pgbench's tables at this scale beside sysbench's (default 1 when a
    /// pgbench workload runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgbench_scale: Option<u32>,
    /// SQL files run once, in order, through the server's own command-line client (`mariadb`,
    /// `mysql`, `psql`) into the database the workloads use; `.gz` and `.xz` are read too.
    /// Paths relative to the study file. With `sql` or `load` and no `tables`, no sysbench
    /// tables are made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sql: Vec<String>,
    /// A script in pgbench's language that fills the tables after `sql`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<DatasetLoad>,
    /// The SHA-256 of each `sql` file and of `load`'s script (recorded when the study is
    /// read; they key the prepared data).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sha256: Vec<String>,
}

/// `[dataset] load`: a script run `events` times over `threads` connections.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetLoad {
    pub script: String,
    pub events: u64,
    #[serde(default = "one_thread")]
    pub threads: u32,
}

fn one_thread() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostSettings {
    /// Transactions in the measured windows (three or more, growing), all on one connection;
    /// instructions per transaction come from the differences between windows, which cancel
    /// whatever is fixed per window.
    #[serde(default = "default_cost_events")]
    pub events: Vec<u32>,
    #[serde(default = "default_cost_warmup")]
    pub warmup_events: u32,
    /// The Insert Benchmark under callgrind, on one table: the rows of l.i0, l.i1 and l.i2
    /// (an entry's own `rows`, `rows_i1` and `rows_i2` size its throughput cells).
    #[serde(default = "default_ibench_rows")]
    pub ibench_rows: u64,
    #[serde(default = "default_ibench_rows_i1")]
    pub ibench_rows_i1: u64,
    #[serde(default = "default_ibench_rows_i2")]
    pub ibench_rows_i2: u64,
}

fn default_ibench_rows() -> u64 {
    20_000
}
fn default_ibench_rows_i1() -> u64 {
    4_000
}
fn default_ibench_rows_i2() -> u64 {
    1_000
}

fn default_cost_events() -> Vec<u32> {
    vec![1000, 2000, 3000]
}
fn default_cost_warmup() -> u32 {
    200
}

impl Default for CostSettings {
    fn default() -> Self {
        CostSettings {
            events: default_cost_events(),
            warmup_events: default_cost_warmup(),
            ibench_rows: default_ibench_rows(),
            ibench_rows_i1: default_ibench_rows_i1(),
            ibench_rows_i2: default_ibench_rows_i2(),
        }
    }
}

/// Thresholds for the validity flags of a cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Client CPU above this share of one core marks the cell client-bound.
    #[serde(default = "default_client_share")]
    pub client_bound_core_share: f64,
    /// CPU of other processes above this share of one core marks the cell contaminated (then repeated).
    #[serde(default = "default_foreign_share")]
    pub foreign_cpu_core_share: f64,
    /// Errors per transaction above this mark the cell.
    #[serde(default = "default_error_rate")]
    pub error_rate: f64,
    /// Relative throughput change between the first and last third of a cell that marks it still trending.
    #[serde(default = "default_trend")]
    pub trend: f64,
    /// Attempts of a contaminated cell.
    #[serde(default = "default_attempts")]
    pub attempts: u32,
}

fn default_client_share() -> f64 {
    0.9
}
fn default_foreign_share() -> f64 {
    0.1
}
fn default_error_rate() -> f64 {
    0.01
}
fn default_trend() -> f64 {
    0.15
}
fn default_attempts() -> u32 {
    2
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            client_bound_core_share: default_client_share(),
            foreign_cpu_core_share: default_foreign_share(),
            error_rate: default_error_rate(),
            trend: default_trend(),
            attempts: default_attempts(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub name: String,
    /// A performance_schema scenario (see `psbench studies`), expanded to startup options
    /// and verified after start.
    #[serde(default)]
    pub scenario: Option<String>,
    /// Server options KEY=VALUE, after the scenario's: a list, or a table whose values are
    /// strings, numbers, booleans (ON/OFF) or lists (the option repeated).
    #[serde(default, deserialize_with = "server_options")]
    pub options: Vec<String>,
    /// Statements run as root after each start (runtime-settable state).
    #[serde(default)]
    pub sql: Vec<String>,
    /// Another server binary tree for this variant (versions and builds).
    #[serde(default)]
    pub basedir: Option<PathBuf>,
    /// The variant's own my.cnf (MySQL, MariaDB), read as its server reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults_file: Option<PathBuf>,
    /// The variant's own postgresql.conf (PostgreSQL), includes and all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_file: Option<PathBuf>,
    /// A release psbench fetches when missing (`mariadb-11.4.5`, `mysql-8.0.15`), instead of a
    /// basedir.
    #[serde(default)]
    pub version: Option<String>,
    /// This variant's data regime (`cached` or `io-bound`), instead of the study's
    /// `dataset.preset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// A settings preset applied before the variant's own options: `durable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<String>,
    /// `postgres`: the system's PostgreSQL when neither basedir nor version names a server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// A server built from source for this variant (as `psbench build` does), instead of a
    /// basedir or version.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "build_table_or_name"
    )]
    pub build: Option<BuildSpec>,
    /// What the variant stands for in the study's question ("performance_schema compiled
    /// out"): the Findings answer in these words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub means: Option<String>,
    /// Measured only under `--full` (builds too long or too many for the default run).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub full_only: bool,
    /// A sweep: this variant once per release (`"postgres:15.8.0..17.2.0"`, `"postgres:*"`,
    /// or a list of release names), expanded when the study is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versions: Option<VersionSweep>,
    /// A sweep's releases built here from source, beside (or instead of) those it fetches:
    /// each a pinned Debian source, whose version names the release, and a flag set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builds: Vec<BuildSpec>,
    /// The sweep a variant was expanded from (its template's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<String>,
    /// A sweep whose releases come from more than one channel (builders, so compilers and
    /// flags): allowed only when asked for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub across_channels: bool,
    /// A release of a sweep that bisection added to locate a change (cost mode only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub located: bool,
}

/// The releases a sweep runs: a range or every release of an engine's channel, or a list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum VersionSweep {
    Range(String),
    List(Vec<String>),
}

/// A variant's `build = { source = "debian:mariadb", flags = "no_pfs" }`, or `build = "NAME"`:
/// a build in the cache by its name (one imported from another host, say), whose record
/// fills in the rest when the study is read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildSpec {
    /// `debian:PACKAGE[=VERSION]`, a source tree or a tarball.
    #[serde(default)]
    pub source: String,
    /// The build's name in the cache (`mysql-9.7.2-release-5d8b5e6d`), when named so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The flag set: `release` unless given.
    #[serde(default = "release_flags")]
    pub flags: String,
    /// More configure or cmake options, after the flag set's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<String>,
    /// `mariadb`, `mysql` or `postgres`, where the source does not say (a tarball).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
}

fn release_flags() -> String {
    "release".into()
}

impl BuildSpec {
    /// `build = "NAME"`, before the study is read: only the name.
    pub fn named(name: &str) -> Self {
        BuildSpec {
            source: String::new(),
            name: Some(name.to_string()),
            flags: release_flags(),
            extra: Vec::new(),
            engine: None,
        }
    }
}

/// A variant's `build`: a table, or the name of a build in the cache.
fn build_table_or_name<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<BuildSpec>, D::Error> {
    struct TableOrName;
    impl<'de> serde::de::Visitor<'de> for TableOrName {
        type Value = Option<BuildSpec>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a build's name in the cache, or a table with source and flags")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(BuildSpec::named(v)))
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
            BuildSpec::deserialize(serde::de::value::MapAccessDeserializer::new(m)).map(Some)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(TableOrName)
}

/// A variant's `options` as a list of `KEY=VALUE` or as a table, `{ performance_schema = "OFF" }`.
fn server_options<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    use serde::de::Error;
    let table = match toml::Value::deserialize(d)? {
        toml::Value::Array(items) => {
            return items
                .into_iter()
                .map(|i| match i {
                    toml::Value::String(s) => Ok(s),
                    other => Err(D::Error::custom(format!(
                        "options: {other} is not a string like \"innodb_buffer_pool_size=1G\""
                    ))),
                })
                .collect()
        }
        toml::Value::Table(t) => t,
        other => {
            return Err(D::Error::custom(format!(
                "options: {other} is neither a list of \"KEY=VALUE\" nor a table"
            )))
        }
    };
    let mut out = Vec::new();
    for (key, value) in table {
        let values = match value {
            toml::Value::Array(a) => a,
            v => vec![v],
        };
        for v in values {
            let text = match v {
                toml::Value::String(s) => s,
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                toml::Value::Boolean(b) => if b { "ON" } else { "OFF" }.to_string(),
                other => {
                    return Err(D::Error::custom(format!(
                        "option '{key}': {other} is not a string, number or boolean"
                    )))
                }
            };
            out.push(format!("{key}={text}"));
        }
    }
    Ok(out)
}

impl Study {
    /// The release variant `name` runs (`postgres-17.2.0`), if it names one.
    pub fn release_of(&self, name: &str) -> Option<&str> {
        self.variants
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.version.as_deref())
    }

    /// The variant every other is compared with: `base`, or the first.
    pub fn base_variant(&self) -> &str {
        self.base.as_deref().unwrap_or(&self.variants[0].name)
    }
}
