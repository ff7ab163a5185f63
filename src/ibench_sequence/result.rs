//! What one step measured (docs/insert-benchmark.md#what-each-step-reports): throughput over the
//! measured window, rows and statements actually executed, per-class latency from each
//! statement's intended start, the background rate against its target, and the tables after.

use crate::driver::RunReport;
use crate::results::insert_benchmark::{
    Background, OriginalHistogram, StepResult, TableFacts, QUERIES_PER_S, TARGET_SHARE,
};
use crate::workloads::ibench::{QueryShape, Step, StepKind, CLASSES, DELETE, INSERT, QUERY};
use std::collections::BTreeMap;

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
