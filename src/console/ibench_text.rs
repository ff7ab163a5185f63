//! The terminal output of `bench insert-benchmark`: a block per step and the summary table.

use crate::results::insert_benchmark::{StepResult, LABELS};
use std::fmt::Write;

const CLASS_ORDER: [&str; 4] = ["insert", "delete", "query", "create_index"];

pub fn step_block(r: &StepResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {:.1} {} over {:.1} s ({} client(s), {} rows/statement)",
        r.step, r.throughput, r.unit, r.seconds, r.clients, r.rows_per_statement
    );
    let _ = writeln!(
        s,
        "  rows inserted {}, deleted {}, queries {} ({:.3} rows/query); rows after {}",
        r.rows_inserted,
        r.rows_deleted,
        r.queries,
        r.fetched_per_query(),
        r.rows_after
    );
    if let Some(b) = &r.background {
        let _ = writeln!(
            s,
            "  background: {:.1} inserts/s and {:.1} deletes/s of {:.0} target ({:.1}%), on schedule {:.0}% of seconds{}",
            b.inserts_per_s,
            b.deletes_per_s,
            b.target_rows_per_s,
            100.0 * b.ratio,
            100.0 * b.seconds_on_schedule,
            if b.below_target { "  BELOW TARGET" } else { "" }
        );
    }
    let _ = writeln!(
        s,
        "  {:<13}{:>9}{:>10}{:>10}{:>10}{:>10}{:>10}   (ms)",
        "latency", "count", "p50", "p95", "p99", "p99.9", "max"
    );
    for name in CLASS_ORDER {
        if let Some(l) = r.latency_ms.get(name) {
            let p = |k: &str| l.percentiles.get(k).copied().unwrap_or(0.0);
            let _ = writeln!(
                s,
                "  {name:<13}{:>9}{:>10.3}{:>10.3}{:>10.3}{:>10.3}{:>10.3}",
                l.count,
                p("50"),
                p("95"),
                p("99"),
                p("99.9"),
                l.max
            );
        }
    }
    let _ = write!(s, "  {:<13}", "% per bucket");
    for l in LABELS {
        let _ = write!(s, "{l:>7}");
    }
    let _ = writeln!(s, "{:>9}", "max s");
    for name in CLASS_ORDER {
        if let Some(h) = r.original_histograms.get(name) {
            let _ = write!(s, "  {name:<13}");
            for p in h.percents() {
                let _ = write!(s, "{p:>7.2}");
            }
            let _ = writeln!(s, "{:>9.3}", h.max_s);
        }
    }
    let op = if r.counts_queries() { "query" } else { "row" };
    let _ = writeln!(
        s,
        "  client CPU {:.2} s, {:.2} us per {op}; errors {}, reconnects {}{}{}\n",
        r.client_cpu_s,
        r.client_cpu_us_per_op,
        r.errors,
        r.reconnects,
        if r.short_deletes > 0 {
            format!(", {} short deletes", r.short_deletes)
        } else {
            String::new()
        },
        if r.incomplete {
            "; INCOMPLETE (--max-seconds)"
        } else {
            ""
        }
    );
    s
}

/// The original report's summary row, and the background-rate row of the query steps.
pub fn summary(results: &[StepResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<12}{:>14}  {:<15}{:>12}",
        "step", "throughput", "unit", "background"
    );
    for r in results {
        let bg = r
            .background
            .as_ref()
            .map(|b| {
                format!(
                    "{:.1}%{}",
                    100.0 * b.ratio,
                    if b.below_target { " LOW" } else { "" }
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{:<12}{:>14.1}  {:<15}{:>12}",
            r.step, r.throughput, r.unit, bg
        );
    }
    s
}
