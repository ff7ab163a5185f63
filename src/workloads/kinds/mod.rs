//! A workload step's kind, chosen once per step ([`of`]) as an engine is chosen once per
//! variant: sysbench's OLTP workloads, pgbench's built-in scripts and the Insert Benchmark.
//! Each kind says what its entry's mistakes are, which cells it measures, how throughput
//! rounds and cost mode run it, what data it needs and how long a turn of it takes. Nothing
//! outside workloads/ asks which kind a step is (tests/architecture.rs): it asks the kind.
//!
//! A new kind is a file here implementing [`Kind`] (no method has a default body, so a new
//! kind does not compile until each question has its answer) and a line in [`of`].

pub mod insert_benchmark;
mod pgbench;
pub mod replay;
pub mod script;
pub mod sysbench;
mod unknown;

use super::ibench::{IbenchOptions, Step};
use super::sysbench::OltpOptions;
use super::Workload;
use crate::connection::Dialect;
use crate::results::study::{CostSettings, WorkloadStep};
use anyhow::Result;

pub use insert_benchmark::INSERT_BENCHMARK;

/// What a step's kind is told of its study.
pub struct Context<'a> {
    /// The study's thread counts (an entry's own `threads` come first).
    pub threads: &'a [u32],
    /// sysbench's options as the study's dataset sizes them (tables, rows per table).
    pub data: OltpOptions,
    /// pgbench's scale of the dataset.
    pub pgbench_scale: u32,
    /// The study's `cost_workloads`: which labels cost mode counts (`None`: all).
    pub cost_workloads: Option<&'a [String]>,
    /// The study's `[cost]` sizes.
    pub cost: &'a CostSettings,
    /// Unmeasured and measured seconds of a cell.
    pub warmup: f64,
    pub duration: f64,
    /// How many workload entries the study has.
    pub entries: usize,
    /// The study cuts each cell into slices alternating between servers.
    pub alternating: bool,
}

impl Context<'_> {
    /// Whether cost mode counts `label`: with no `cost_workloads`, everything.
    pub fn cost_selects(&self, label: &str) -> bool {
        self.cost_workloads
            .is_none_or(|names| names.iter().any(|n| n == label))
    }

    /// The entry's thread counts: its own, else the study's.
    pub fn threads_of(&self, w: &WorkloadStep) -> Vec<u32> {
        w.threads.clone().unwrap_or_else(|| self.threads.to_vec())
    }
}

/// How throughput rounds run an entry.
pub enum Runs {
    /// Transactions of one workload: a cell per thread count, each measured for the cell's
    /// time and on the same data as the others.
    Transactions(Box<dyn Workload>),
    /// Steps that build on one another's data, run in order, each a cell of its own.
    Sequence(Sequence),
}

/// Steps run in order on fresh tables, each cell labelled by [`WorkloadStep::sub_label`].
pub struct Sequence {
    pub options: IbenchOptions,
    pub steps: Vec<Step>,
}

/// How cost mode counts an entry.
pub enum Counted {
    /// Windows of transactions on one connection, one result per label.
    Transactions(Vec<(String, Box<dyn Workload>)>),
    /// Steps at cost mode's sizes, run in order: each step's label with it, and the labels
    /// that get a result (the steps before the last of them build its table).
    Sequence {
        options: IbenchOptions,
        steps: Vec<(String, Step)>,
        counted: Vec<String>,
    },
}

/// What the prepared dataset must hold for an entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Data {
    /// sysbench's tables, shaped by these options.
    pub oltp: Option<OltpOptions>,
    /// pgbench's tables at this scale.
    pub pgbench_scale: Option<u32>,
}

/// One kind of workload step.
pub trait Kind: Sync {
    /// The entry's mistakes, each a line (the study names the entry before it).
    fn mistakes(&self, w: &WorkloadStep, ctx: &Context) -> Vec<String>;
    /// The cells it measures: (label, threads), in order.
    fn cells(&self, w: &WorkloadStep, ctx: &Context) -> Vec<(String, u32)>;
    /// How throughput rounds run it.
    fn runs(&self, w: &WorkloadStep, ctx: &Context) -> Result<Runs>;
    /// The labels cost mode gives a result for (none when `cost_workloads` selects nothing
    /// of it).
    fn cost_labels(&self, w: &WorkloadStep, ctx: &Context) -> Vec<String>;
    /// How cost mode counts it.
    fn counted(&self, w: &WorkloadStep, ctx: &Context) -> Result<Counted>;
    /// Why its cells must run in order on one server, each turn from the start (they
    /// change the data the next one reads); `None` when any cell may run alone, in slices
    /// alternating between servers.
    fn in_order(&self, w: &WorkloadStep) -> Option<String>;
    /// The most client connections one of its cells opens.
    fn connections(&self, w: &WorkloadStep, ctx: &Context) -> u32;
    /// Seconds one variant's turn of it takes, each cell costing `cell_overhead` beyond its
    /// warm-up and measured time (for `--plan`).
    fn turn_seconds(&self, w: &WorkloadStep, ctx: &Context, cell_overhead: f64) -> f64;
    /// What the dataset must hold for it.
    fn data(&self, w: &WorkloadStep, ctx: &Context) -> Result<Data>;
    /// Why a server that speaks `dialect` cannot run it, if it cannot.
    fn refused_by(&self, w: &WorkloadStep, dialect: Dialect) -> Option<String>;
}

/// The kind of workload entry `w`, from its `workload`.
pub fn of(w: &WorkloadStep) -> &'static dyn Kind {
    let name = w.workload.as_str();
    if name == INSERT_BENCHMARK {
        &insert_benchmark::InsertBenchmark
    } else if super::pgbench::PGBENCH_WORKLOADS.contains(&name) {
        &pgbench::Pgbench
    } else if super::SYSBENCH_WORKLOADS.contains(&name) {
        &sysbench::Sysbench
    } else if name == script::SCRIPT {
        &script::Scripts
    } else if name == replay::REPLAY {
        &replay::Replay
    } else {
        &unknown::Unknown
    }
}

/// Every workload name a study's `workload` takes, for messages.
pub fn known_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = super::SYSBENCH_WORKLOADS.to_vec();
    names.push(INSERT_BENCHMARK);
    names.extend(super::pgbench::PGBENCH_WORKLOADS);
    names.push(script::SCRIPT);
    names.push(replay::REPLAY);
    names
}

/// The entry's keys that belong to another kind: one line each.
fn foreign_keys(w: &WorkloadStep, own: &[&str]) -> Vec<String> {
    let given = [
        ("steps", w.steps.is_some(), INSERT_BENCHMARK),
        ("scripts", w.scripts.is_some(), script::SCRIPT),
        ("vars", w.vars.is_some(), script::SCRIPT),
        ("query_mode", w.query_mode.is_some(), script::SCRIPT),
        ("per_statement", w.per_statement.is_some(), script::SCRIPT),
        ("log", w.log.is_some(), replay::REPLAY),
        ("pace", w.pace.is_some(), replay::REPLAY),
        ("speed", w.speed.is_some(), replay::REPLAY),
    ];
    given
        .iter()
        .filter(|(key, set, _)| *set && !own.contains(key))
        .map(|(key, _, kind)| format!("{key} is a key of {kind} steps only"))
        .collect()
}

/// A cell per thread count, each labelled by the entry: the transactions kinds' cells.
fn cells_per_thread_count(w: &WorkloadStep, ctx: &Context) -> Vec<(String, u32)> {
    ctx.threads_of(w)
        .into_iter()
        .map(|t| (w.label(), t))
        .collect()
}

/// The transactions kinds' own thread counts, checked (the study's are, at its `threads`).
fn thread_mistakes(w: &WorkloadStep, _ctx: &Context) -> Vec<String> {
    let Some(threads) = &w.threads else {
        return Vec::new();
    };
    if threads.is_empty() || threads.contains(&0) {
        return vec![format!(
            "thread counts must be at least 1 (got {threads:?})"
        )];
    }
    Vec::new()
}

/// A turn of a transactions kind: its cells, each warmed up and measured.
fn cells_seconds(w: &WorkloadStep, ctx: &Context, cell_overhead: f64) -> f64 {
    ctx.threads_of(w).len() as f64 * (ctx.warmup + ctx.duration + cell_overhead)
}
