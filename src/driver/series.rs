//! The per-second time series of a run (for the JSON document): throughput, errors and
//! latency percentiles of each 1 s interval, overall and per transaction class.

use super::interval::IntervalStats;
use crate::results::bench::{ClassRecord, IntervalRecord, QueryRates};

pub struct RecordContext<'a> {
    pub t: f64,
    pub duration: f64,
    pub threads: usize,
    pub open_loop: bool,
    pub queue_length: Option<usize>,
    pub concurrency: Option<usize>,
    pub class_names: &'a [String],
    pub percentiles: &'a [f64],
}

impl IntervalRecord {
    pub fn new(s: &IntervalStats, c: &RecordContext) -> Self {
        let per_s = |n: u64| {
            if c.duration > 0.0 {
                n as f64 / c.duration
            } else {
                0.0
            }
        };
        let lag = |l: &super::latency::Latencies| c.open_loop.then(|| l.summary(c.percentiles));
        IntervalRecord {
            t: c.t,
            duration: c.duration,
            threads: c.threads,
            transactions: s.events,
            tps: per_s(s.events),
            queries: QueryRates {
                total: s.queries.total(),
                reads: s.queries.reads,
                writes: s.queries.writes,
                other: s.queries.other,
                per_sec: per_s(s.queries.total()),
            },
            errors: s.errors,
            reconnects: s.reconnects,
            queue_length: c.queue_length,
            concurrency: c.concurrency,
            latency_ms: s.latency().summary(c.percentiles),
            schedule_lag_ms: lag(&s.lag()),
            classes: s
                .classes
                .iter()
                .zip(c.class_names)
                .map(|(cs, name)| ClassRecord {
                    name: name.clone(),
                    transactions: cs.latency.count(),
                    latency_ms: cs.latency.summary(c.percentiles),
                    schedule_lag_ms: lag(&cs.lag),
                })
                .collect(),
        }
    }
}
