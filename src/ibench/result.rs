//! What one step measured (spec §4, with the improvements of §5): throughput over the
//! measured window, rows and statements actually executed, per-class latency from each
//! statement's intended start, the background rate against its target, and the tables after.

use super::buckets::OriginalHistogram;
use crate::driver::{LatencySummary, RunReport};
use crate::workloads::ibench::{
    QueryShape, Step, StepKind, TableFacts, CLASSES, DELETE, INSERT, QUERY,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The SLA of the original: the background insert rate reaches 95% of its target.
pub const TARGET_SHARE: f64 = 0.95;

const QUERIES_PER_S: &str = "queries/s";

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
    pub fn build(
        step: &Step,
        clients: u32,
        report: &RunReport,
        counts: &Counts,
        tables_after: Vec<TableFacts>,
    ) -> StepResult {
        let seconds = report.total_time_s.max(1e-9);
        let per_s = |n: u64| n as f64 / seconds;
        let classes = &report.totals.classes;
        let statements = |c: usize| classes[c].latency.count();
        let rows_after = tables_after.iter().map(|t| t.rows).sum();
        let (throughput, unit, ops) = match step.kind {
            StepKind::Load { .. } => (
                per_s(counts.rows_inserted),
                "inserts/s",
                counts.rows_inserted,
            ),
            StepKind::Index => (per_s(rows_after), "indexed rows/s", rows_after),
            StepKind::Query { .. } => (per_s(counts.queries), QUERIES_PER_S, counts.queries),
        };
        let background = step.rate().map(|r| {
            let target = r as f64 * clients as f64;
            let ins = per_s(counts.rows_inserted);
            Background {
                target_rows_per_s: target,
                inserts_per_s: ins,
                deletes_per_s: per_s(counts.rows_deleted),
                ratio: ins / target,
                seconds_on_schedule: seconds_on_schedule(
                    report,
                    step.rows_per_commit,
                    clients,
                    target,
                ),
                below_target: ins < TARGET_SHARE * target,
            }
        });
        let mut latency_ms = BTreeMap::new();
        let mut original_histograms = BTreeMap::new();
        for (name, c) in CLASSES.iter().zip(classes) {
            if c.latency.count() > 0 {
                latency_ms.insert(name.to_string(), c.latency.summary(&[]));
                original_histograms.insert(name.to_string(), OriginalHistogram::of(&c.latency));
            }
        }
        let cpu = report.cpu.total_s();
        StepResult {
            step: step.name.clone(),
            throughput,
            unit: unit.into(),
            operations: ops,
            clients,
            seconds,
            rows_per_statement: step.rows_per_commit,
            rows_inserted: counts.rows_inserted,
            rows_deleted: counts.rows_deleted,
            insert_statements: statements(INSERT),
            delete_statements: statements(DELETE),
            short_deletes: counts.short_deletes,
            queries: counts.queries,
            rows_fetched: counts.rows_fetched,
            range_queries: matches!(
                step.kind,
                StepKind::Query {
                    shape: QueryShape::Range,
                    ..
                }
            )
            .then_some(counts.range_queries),
            inserts_per_s: per_s(counts.rows_inserted),
            deletes_per_s: per_s(counts.rows_deleted),
            queries_per_s: per_s(statements(QUERY)),
            background,
            latency_ms,
            original_histograms,
            errors: report.totals.errors,
            reconnects: report.totals.reconnects,
            client_cpu_s: cpu,
            client_cpu_us_per_op: if ops > 0 { cpu * 1e6 / ops as f64 } else { 0.0 },
            tables_after,
            rows_after,
            incomplete: statements(INSERT) < step.statements * clients as u64,
        }
    }

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

/// Rows and queries the workers counted (affected and fetched rows, not nominal ones).
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub rows_inserted: u64,
    pub rows_deleted: u64,
    pub short_deletes: u64,
    pub queries: u64,
    pub rows_fetched: u64,
    pub range_queries: [u64; 3],
}

/// Share of the step's seconds at whose end the inserts were on schedule: no further behind
/// `target × t` than one statement per client plus 5% of a second's target. Judged on the
/// running total, since statements of 0.5 s periods cannot fill every second evenly.
fn seconds_on_schedule(
    report: &RunReport,
    rows_per_statement: u64,
    clients: u32,
    target: f64,
) -> f64 {
    let slack = rows_per_statement as f64 * clients as f64 + (1.0 - TARGET_SHARE) * target;
    let mut done = 0u64;
    let mut judged = 0usize;
    let mut ok = 0usize;
    for s in &report.seconds {
        done += s.classes[INSERT].transactions * rows_per_statement;
        if s.duration < 0.999 {
            continue;
        }
        judged += 1;
        if target * s.t - done as f64 <= slack {
            ok += 1;
        }
    }
    if judged == 0 {
        return 0.0;
    }
    ok as f64 / judged as f64
}
