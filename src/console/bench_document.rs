//! `--json FILE`: the bench document of a run (results::bench), filled from what the
//! driver measured.

use crate::connection::{redact_password, Endpoint};
use crate::driver::{RunOptions, RunReport};
use crate::results::bench::{
    BenchDocument, ClassTotals, ClientCpu, EndpointRecord, Fairness, QueryRates, Totals, FORMAT,
    VERSION,
};

pub struct RunContext<'a> {
    pub endpoint: &'a Endpoint,
    pub workload_options: &'a serde_json::Value,
    pub command_line: &'a [String],
}

pub fn document(r: &RunReport, opts: &RunOptions, ctx: &RunContext) -> BenchDocument {
    let t = &r.totals;
    let rate = |n: u64| {
        if r.total_time_s > 0.0 {
            n as f64 / r.total_time_s
        } else {
            0.0
        }
    };
    BenchDocument {
        format: FORMAT.to_string(),
        version: VERSION,
        psbench_version: env!("CARGO_PKG_VERSION").to_string(),
        workload: r.workload.clone(),
        server_version: r.server_version.clone(),
        seed: r.seed,
        endpoint: record(ctx.endpoint),
        options: opts.clone(),
        workload_options: ctx.workload_options.clone(),
        command_line: redact_password(ctx.command_line),
        totals: Totals {
            time_s: r.total_time_s,
            threads: r.threads,
            transactions: t.events,
            tps: rate(t.events),
            queries: QueryRates {
                total: t.queries.total(),
                reads: t.queries.reads,
                writes: t.queries.writes,
                other: t.queries.other,
                per_sec: rate(t.queries.total()),
            },
            errors: t.errors,
            reconnects: t.reconnects,
            latency_ms: t.latency().summary(&opts.percentiles),
            schedule_lag_ms: r.dropped.map(|_| t.lag().summary(&opts.percentiles)),
            due_not_started: r.dropped,
            threads_fairness: Fairness {
                events: r.per_thread.iter().map(|p| p.events).collect(),
                execution_time_s: r
                    .per_thread
                    .iter()
                    .map(|p| p.busy_ns as f64 / 1e9)
                    .collect(),
            },
            classes: r
                .class_names
                .iter()
                .zip(&t.classes)
                .map(|(name, c)| ClassTotals {
                    name: name.clone(),
                    transactions: c.latency.count(),
                    per_sec: rate(c.latency.count()),
                    latency_ms: c.latency.summary(&opts.percentiles),
                    schedule_lag_ms: (c.lag.count() > 0).then(|| c.lag.summary(&opts.percentiles)),
                })
                .collect(),
        },
        client_cpu: ClientCpu {
            usage: r.cpu,
            us_per_transaction: r.cpu.us_per(t.events),
            us_per_query: r.cpu.us_per(t.queries.total()),
        },
        intervals: r.seconds.clone(),
        insert_benchmark: None,
    }
}

/// The endpoint as recorded: everything but the password.
fn record(e: &Endpoint) -> EndpointRecord {
    EndpointRecord {
        host: e.host.clone(),
        port: e.port,
        socket: e.socket.clone(),
        user: e.user.clone(),
        database: e.database.clone(),
    }
}
