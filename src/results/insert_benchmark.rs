//! What one Insert Benchmark step measured, as a results file holds it: throughput, rows and
//! statements executed, per-class latency, the background writers' rate against its target,
//! the original client's response-time buckets and the tables after the step. Built by
//! ibench/result.rs; docs/insert-benchmark.md explains every figure.

use super::latency::LatencySummary;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The SLA of the original: the background insert rate reaches 95% of its target.
pub const TARGET_SHARE: f64 = 0.95;

pub const QUERIES_PER_S: &str = "queries/s";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    pub step: String,
    /// The step's headline figure: inserts/s (l.i*), indexed rows/s (l.x), queries/s (q*).
    pub throughput: f64,
    pub unit: String,
    /// What `throughput` counts: rows inserted, rows indexed, or queries.
    pub operations: u64,
    pub clients: u32,
    pub seconds: f64,
    pub rows_per_statement: u64,
    pub rows_inserted: u64,
    pub rows_deleted: u64,
    pub insert_statements: u64,
    pub delete_statements: u64,
    /// DELETEs that removed fewer rows than asked.
    pub short_deletes: u64,
    pub queries: u64,
    pub rows_fetched: u64,
    /// Range steps: queries per index (market, register, pdc), the mix.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub range_queries: Option<[u64; 3]>,
    pub inserts_per_s: f64,
    pub deletes_per_s: f64,
    pub queries_per_s: f64,
    /// Query steps: the writers' rate against its target.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub background: Option<Background>,
    /// Per statement class, milliseconds (from the intended start for throttled writers).
    pub latency_ms: BTreeMap<String, LatencySummary>,
    /// Per statement class, in the original client's buckets.
    pub original_histograms: BTreeMap<String, OriginalHistogram>,
    pub errors: u64,
    pub reconnects: u64,
    pub client_cpu_s: f64,
    /// Client CPU per inserted row (load steps) or per query (query steps), microseconds.
    pub client_cpu_us_per_op: f64,
    pub tables_after: Vec<TableFacts>,
    pub rows_after: u64,
    /// The step stopped at --max-seconds before issuing all its statements.
    pub incomplete: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Background {
    /// Rows/s over all clients the writers were asked for (clients × R).
    pub target_rows_per_s: f64,
    pub inserts_per_s: f64,
    pub deletes_per_s: f64,
    /// inserts_per_s / target.
    pub ratio: f64,
    /// Share of whole seconds at whose end the inserts were on schedule (see
    /// `seconds_on_schedule`): stalls that an average hides.
    pub seconds_on_schedule: f64,
    /// The SLA failed: the average stayed under 95% of the target.
    pub below_target: bool,
}

impl StepResult {
    /// A query step: its operations are queries, not rows.
    pub fn counts_queries(&self) -> bool {
        self.unit == QUERIES_PER_S
    }

    pub fn fetched_per_query(&self) -> f64 {
        if self.queries == 0 {
            0.0
        } else {
            self.rows_fetched as f64 / self.queries as f64
        }
    }
}

/// Upper bounds in microseconds; the last bucket is everything above 16 s.
pub const BOUNDS_US: [u64; 9] = [
    256, 1_000, 4_000, 16_000, 64_000, 256_000, 1_000_000, 4_000_000, 16_000_000,
];
pub const LABELS: [&str; 10] = [
    "256us", "1ms", "4ms", "16ms", "64ms", "256ms", "1s", "4s", "16s", "gt",
];

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OriginalHistogram {
    /// Statements per bucket, in the order of [`LABELS`].
    pub counts: [u64; 10],
    pub max_s: f64,
}

/// What a table holds: rows, lowest and highest primary key, and its index names.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TableFacts {
    pub table: String,
    pub rows: u64,
    pub min_id: Option<i64>,
    pub max_id: Option<i64>,
    pub indexes: Vec<String>,
}
