//! The versioned results document of a study: one JSON file, rewritten atomically after
//! every cell, so an interrupted study keeps every finished cell and can be resumed.

use super::insert_benchmark::StepResult;
use super::io::{check_format, read, write_atomically};
use super::provenance::{Host, VariantProvenance};
use super::study::Study;
use crate::error::usage;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub const FORMAT: &str = "psbench-study";
pub const VERSION: u32 = 1;
pub const FILE_NAME: &str = "results.json";
/// Where a study keeps its folded stacks and flame graphs, beside its results.
pub const PROFILES_DIR: &str = "profiles";

/// Cost mode's self-check: consecutive marginal estimates of instructions per transaction may
/// differ by at most this share of the lower; beyond it, a measurement is `unstable`.
pub const COST_TOLERANCE: f64 = 0.002;
/// The same for an Insert Benchmark write step, measured twice from the same table: its two
/// figures of instructions per row may differ by at most this share of the lower.
pub const COST_WRITE_TOLERANCE: f64 = 0.005;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyResults {
    pub format: String,
    pub version: u32,
    pub tool_version: String,
    /// The study as run (after command-line overrides), and where it came from.
    pub study: Study,
    pub origin: String,
    pub host: Host,
    pub started_unix: u64,
    pub finished_unix: Option<u64>,
    /// Base seed; each cell's seed derives from it and the cell's key.
    pub seed: u64,
    pub variants: BTreeMap<String, VariantProvenance>,
    pub cells: Vec<CellResult>,
    pub cost: Vec<CostResult>,
    /// Things the reader must know (profiles unavailable, a variant restarted after a crash…).
    pub notes: Vec<String>,
    /// The labels of the study's cells (workload steps) in the study's order, for reports.
    #[serde(default)]
    pub steps: Vec<String>,
    /// Profiled studies: per variant, step and thread count, the frames whose server CPU per
    /// transaction grew most against the base. `None` in a document from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames_that_grew: Option<Vec<FramesThatGrew>>,
    /// The data each server binary started from: its size and what loading and warming cost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub datasets: Vec<DatasetRecord>,
    /// The definition's checksum, the share of rounds and each round's host and order
    /// (docs/sharding.md); empty in a document from before it was kept.
    #[serde(default, skip_serializing_if = "super::shard::Sharding::is_empty")]
    pub sharding: super::shard::Sharding,
    /// What the study measured about each host it ran on (wake-ups, steal, governor);
    /// empty in a document from before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_probes: Vec<super::host_probe::HostProbe>,
}

/// One server binary's prepared data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DatasetRecord {
    /// The server it was loaded with (`MariaDB 10.11.19`).
    pub server: String,
    pub tables: u32,
    pub rows_per_table: u32,
    /// Data and indexes on disk after loading (information_schema).
    pub bytes: u64,
    /// Seconds this run spent loading it (0 when it came from the cache of an earlier run).
    pub load_s: f64,
    /// Seconds spent reading it into the buffer pool before cached cells, over all turns.
    #[serde(default)]
    pub warm_s: f64,
}

/// The frames that grew most per transaction in one variant against the base, pooled over
/// the rounds where both were sampled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FramesThatGrew {
    pub variant: String,
    pub base: String,
    pub step: String,
    pub threads: u32,
    /// Sampled server CPU per transaction, nanoseconds.
    pub base_ns_per_txn: f64,
    pub variant_ns_per_txn: f64,
    pub base_transactions: u64,
    pub variant_transactions: u64,
    /// Most grown first (by self time).
    pub frames: Vec<FrameGrowth>,
}

/// One frame's CPU per transaction in nanoseconds: self (the frame running) and total (the
/// frame on the stack).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameGrowth {
    pub frame: String,
    pub self_base_ns: f64,
    pub self_variant_ns: f64,
    pub total_base_ns: f64,
    pub total_variant_ns: f64,
}

/// Identifies a throughput cell.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    pub round: u32,
    pub variant: String,
    pub step: String,
    pub threads: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flag {
    /// The client used more than the set share of a core: the result may measure the client.
    ClientBound,
    /// Other processes used more than the set share of a core during the cell.
    Contaminated,
    /// Errors per transaction above the limit.
    Errors,
    /// Throughput was still trending within the measured window (not steady).
    NotSteady,
    /// Open-loop rate not sustained.
    RateNotSustained,
    /// Asked to run IO-bound, but too few lookups read from disk.
    NotIoBound,
    /// Asked to run cached, but lookups read from disk.
    NotCached,
    /// Server, client and other processes together kept the CPUs psbench may use more than
    /// `HOST_SATURATED_SHARE` busy: the cell measures the host's capacity as much as the
    /// server. Not measured again: another attempt would be saturated too.
    HostSaturated,
}

/// A cell whose CPUs were busy (or stolen) more than this share of the time is saturated.
pub const HOST_SATURATED_SHARE: f64 = 0.9;

/// The data regime a variant's throughput cells ask for (docs/study-file.md#dataset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Regime {
    /// The data fits the buffer pool and is read into it before measuring.
    Cached,
    /// The data is at least 4× the buffer pool and read past the OS page cache.
    IoBound,
}

impl Regime {
    pub fn label(self) -> &'static str {
        match self {
            Regime::Cached => "cached",
            Regime::IoBound => "io-bound",
        }
    }
}

/// A cell runs IO-bound when at least this many InnoDB pages come from disk per index lookup.
/// Measured on MariaDB 10.11 here (data 7× a 32M pool): 0.97 for point selects, 1.35 for
/// read-only, 1.9 for read-write.
pub const REGIME_IO_BOUND_MIN: f64 = 0.2;
/// A cell runs cached when fewer than this many pages come from disk per index lookup.
pub const REGIME_CACHED_MAX: f64 = 0.001;

/// A cell's regime as asked and as the server's counters show it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegimeCheck {
    pub asked: Regime,
    /// InnoDB pages read from disk per index lookup (Innodb_pages_read / Handler_read_key).
    pub disk_reads_per_lookup: f64,
}

/// IO of the block device holding the datadir over a window, per second (/proc/diskstats):
/// what reached the disk, whoever issued it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceIo {
    pub read_mb_s: f64,
    pub write_mb_s: f64,
    pub read_iops: f64,
    pub write_iops: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Resources {
    pub server_cpu_us_per_txn: f64,
    pub client_cpu_us_per_txn: f64,
    /// CPU seconds of processes other than server and client during the cell.
    pub foreign_cpu_s: f64,
    /// Server CPUs busy on average.
    pub server_cpu_util: f64,
    pub client_cpu_util: f64,
    pub server_cs_per_txn: f64,
    pub client_cs_per_txn: f64,
    pub read_kb_per_txn: f64,
    pub write_kb_per_txn: f64,
    pub server_rss_mb: f64,
    pub pfs_memory_mb: f64,
    /// Selected SHOW GLOBAL STATUS deltas per transaction.
    pub status_per_txn: BTreeMap<String, f64>,
    /// The device holding the datadir, over the measured window (absent when the datadir is
    /// on no block device).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceIo>,
    /// Alternating cells: CPUs the other variants' live servers kept busy on average while
    /// this one was measured (not counted as another process's CPU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_servers_cpu_util: Option<f64>,
}

/// One slice of an alternating cell: a stretch of the measured time on this variant's
/// server while the others' servers stayed up and idle.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SliceRecord {
    /// Position in the cell's sequence of slices over every variant (0 = the first slice).
    pub position: u32,
    /// Seconds since the cell's first slice began.
    pub at_s: f64,
    pub duration_s: f64,
    pub transactions: u64,
    pub tps: f64,
    pub server_cpu_us_per_txn: f64,
    pub client_cpu_us_per_txn: f64,
    /// CPUs the other live servers kept busy during this slice.
    pub idle_servers_cpu_util: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<Flag>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    #[serde(flatten)]
    pub key: CellKey,
    pub ok: bool,
    #[serde(default)]
    pub error: Option<String>,
    pub attempts: u32,
    pub duration_s: f64,
    pub transactions: u64,
    pub queries: u64,
    pub tps: f64,
    pub qps: f64,
    pub errors: u64,
    pub reconnects: u64,
    /// p50, p95, p99, p99.9, max, avg (ms).
    pub latency_ms: BTreeMap<String, f64>,
    pub per_second_tps: Vec<f64>,
    /// The device's IO in each second of the measured window.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_second_device: Vec<DeviceIo>,
    /// The first second of steady state in `per_second_tps` (cells of 6 s or more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_from_s: Option<u32>,
    /// The regime asked for and the counters' verdict (studies with a dataset regime).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<RegimeCheck>,
    pub resources: Resources,
    pub flags: Vec<Flag>,
    /// The server's stacks sampled during the measured window, when the cell was profiled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<CellProfile>,
    /// An Insert Benchmark step's own figures (rows, background rate, original buckets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insert_benchmark: Option<StepResult>,
    /// An alternating cell's slices, in the order they ran (empty when the cell ran whole).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slices: Vec<SliceRecord>,
    /// Each transaction class's own figures, where the step has more than one (a script
    /// step's scripts), in the step's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<ClassResult>,
    /// What the cell's "transactions" count where they are not transactions (a replay's
    /// statements); such a cell ran its workload whole, whatever the study's duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// One transaction class of a cell: a script of a script step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassResult {
    pub name: String,
    pub transactions: u64,
    pub tps: f64,
    /// p50, p95, p99, p99.9, max, avg (ms), from the class's merged histograms.
    pub latency_ms: BTreeMap<String, f64>,
    /// Its transactions that failed (a replay's failed statements of this kind).
    #[serde(default, skip_serializing_if = "crate::results::document::is_zero")]
    pub errors: u64,
    /// Each statement's mean latency (ms), in the script's order, where the step asked for
    /// them (`per_statement`): pgbench's `-r`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statements: Vec<StatementLatency>,
}

/// One command of a script and its mean latency.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatementLatency {
    pub line: usize,
    pub command: String,
    pub mean_ms: f64,
}

/// A profiled cell: where its folded stacks are and the work they stand for, so that they
/// can be divided per transaction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellProfile {
    /// Folded stacks (CPU nanoseconds sampled per stack), relative to the results directory.
    pub folded: String,
    /// Transactions done while sampling (the measured window's).
    pub transactions: u64,
    pub samples: u64,
    pub seconds: f64,
    /// Samples per second of CPU.
    pub frequency: u32,
    /// Share of the server binary's frames that perf could not name (0 to 1).
    pub unresolved_share: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostResult {
    pub variant: String,
    pub step: String,
    pub ok: bool,
    #[serde(default)]
    pub error: Option<String>,
    /// Instructions (callgrind Ir) per transaction: between the first and last windows of
    /// the last attempt, divided by the transactions between them.
    pub ir_per_txn: f64,
    /// Every counted window of every attempt, in the order counted.
    #[serde(default)]
    pub windows: Vec<CostWindow>,
    /// The last attempt's marginal estimates (instructions between consecutive windows over
    /// the transactions between them).
    #[serde(default)]
    pub estimates: Vec<f64>,
    /// The estimates disagreed beyond the tolerance in the measurement and in its repeat.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unstable: bool,
    /// What `ir_per_txn` counts instructions per: a transaction (sysbench workloads), an
    /// inserted or indexed row (Insert Benchmark loads and index build), a query.
    #[serde(default, skip_serializing_if = "CostUnit::is_transaction")]
    pub unit: CostUnit,
    /// Wall seconds this result took, its server's start under valgrind included when it was
    /// the variant's first step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Documents written before windows were recorded held two windows here; read only.
    #[serde(default, skip_serializing)]
    events: Option<[u32; 2]>,
    #[serde(default, skip_serializing)]
    ir: Option<[u64; 2]>,
}

impl CostResult {
    /// The lowest and highest of its count and its repeated estimates: how far it repeats.
    pub fn repeat_range(&self) -> (f64, f64) {
        self.estimates
            .iter()
            .fold((self.ir_per_txn, self.ir_per_txn), |(lo, hi), e| {
                (lo.min(*e), hi.max(*e))
            })
    }
}

/// The unit of work a cost result divides its instructions by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CostUnit {
    #[default]
    Transaction,
    Row,
    Query,
    /// A replayed statement.
    Statement,
}

impl CostUnit {
    pub fn name(self) -> &'static str {
        match self {
            CostUnit::Transaction => "transaction",
            CostUnit::Row => "row",
            CostUnit::Query => "query",
            CostUnit::Statement => "statement",
        }
    }

    fn is_transaction(&self) -> bool {
        *self == CostUnit::Transaction
    }
}

/// One counted cost window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostWindow {
    /// 1 for the measurement, 2 for its repeat.
    pub attempt: u32,
    pub events: u32,
    pub ir: u64,
    /// The serving thread's number in callgrind's dumps (absent in upgraded documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<u32>,
}

impl CostResult {
    pub fn new(variant: &str, step: &str) -> CostResult {
        CostResult {
            variant: variant.to_string(),
            step: step.to_string(),
            ok: false,
            error: None,
            ir_per_txn: 0.0,
            windows: Vec::new(),
            estimates: Vec::new(),
            unstable: false,
            unit: CostUnit::Transaction,
            seconds: None,
            events: None,
            ir: None,
        }
    }

    /// Transactions between the first and last windows of the last attempt: what
    /// `ir_per_txn` was divided by.
    pub fn counted_transactions(&self) -> u64 {
        let last = self.windows.last().map_or(0, |w| w.attempt);
        let of_last: Vec<&CostWindow> = self.windows.iter().filter(|w| w.attempt == last).collect();
        match (of_last.first(), of_last.last()) {
            (Some(a), Some(b)) => b.events.saturating_sub(a.events) as u64,
            _ => 0,
        }
    }

    /// A document of the two-window layout: its windows become attempt 1's.
    fn upgrade(&mut self) {
        if let (Some(events), Some(ir), true) = (self.events, self.ir, self.windows.is_empty()) {
            if self.ok {
                self.windows = (0..2)
                    .map(|i| CostWindow {
                        attempt: 1,
                        events: events[i],
                        ir: ir[i],
                        thread: None,
                    })
                    .collect();
                self.estimates = vec![self.ir_per_txn];
            }
        }
        self.events = None;
        self.ir = None;
    }
}

/// The key of `variants` under which a variant's server run under callgrind is recorded.
pub fn cost_provenance_key(name: &str) -> String {
    format!("{name} [cost]")
}

impl StudyResults {
    /// A new document of `study`, nothing measured yet: the host, start, seed and sharding
    /// are the runner's to set.
    pub fn new(study: Study, origin: &str) -> StudyResults {
        StudyResults {
            format: FORMAT.into(),
            version: VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            study,
            origin: origin.into(),
            host: Host::default(),
            started_unix: 0,
            finished_unix: None,
            seed: 0,
            variants: BTreeMap::new(),
            cells: Vec::new(),
            cost: Vec::new(),
            notes: Vec::new(),
            steps: Vec::new(),
            frames_that_grew: None,
            datasets: Vec::new(),
            sharding: super::shard::Sharding::default(),
            host_probes: Vec::new(),
        }
    }

    pub fn cell(&self, key: &CellKey) -> Option<&CellResult> {
        self.cells.iter().find(|c| &c.key == key)
    }

    /// What variant `name`'s throughput server ran, else its cost-mode server.
    pub fn provenance(&self, name: &str) -> Option<&VariantProvenance> {
        self.variants
            .get(name)
            .or_else(|| self.variants.get(&cost_provenance_key(name)))
    }

    /// What variant `name`'s cost-mode server ran, else its throughput server.
    pub fn cost_provenance(&self, name: &str) -> Option<&VariantProvenance> {
        self.variants
            .get(&cost_provenance_key(name))
            .or_else(|| self.variants.get(name))
    }

    pub fn cost_for(&self, variant: &str, step: &str) -> Option<&CostResult> {
        self.cost
            .iter()
            .find(|c| c.variant == variant && c.step == step)
    }

    /// Write `DIR/results.json` atomically (a temporary file renamed over it).
    pub fn save(&self, dir: &Path) -> Result<()> {
        write_atomically(&dir.join(FILE_NAME), self)
    }

    /// Read a results document; a file that is not psbench's is a usage error.
    pub fn load(path: &Path) -> Result<StudyResults> {
        let path = if path.is_dir() {
            path.join(FILE_NAME)
        } else {
            path.to_path_buf()
        };
        let v = read(&path, FORMAT, VERSION)?;
        from_checked(v, &path.display().to_string())
    }
}

/// Parse a results document, checking that it is psbench's and of a version this build reads.
pub fn parse(text: &str, origin: &str) -> Result<StudyResults> {
    from_checked(check_format(text, origin, FORMAT, VERSION)?, origin)
}

/// A document whose format and version were checked, typed, with older layouts upgraded.
fn from_checked(v: serde_json::Value, origin: &str) -> Result<StudyResults> {
    let mut res: StudyResults = serde_json::from_value(v)
        .map_err(|e| usage(format!("{origin}: malformed psbench results: {e}")))?;
    for c in &mut res.cost {
        c.upgrade();
    }
    Ok(res)
}

/// For `skip_serializing_if`: a count that is 0 is left out of the document.
pub fn is_zero(n: &u64) -> bool {
    *n == 0
}
