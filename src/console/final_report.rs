//! The text printed at the end of `run`: sysbench's report, then psbench's own lines.

use super::sysbench_text::{
    distribution_line, extra_line, histogram, sysbench_report, FinalFigures,
};
use crate::driver::{Latencies, RunOptions, RunReport};

pub fn final_report(r: &RunReport, opts: &RunOptions) -> String {
    let latency = r.totals.latency();
    let mut s = String::new();
    if opts.histogram {
        s.push_str(&histogram(&latency));
    }
    s.push_str(&sysbench_report(&FinalFigures {
        queries: r.totals.queries,
        events: r.totals.events,
        errors: r.totals.errors,
        reconnects: r.totals.reconnects,
        total_time_s: r.total_time_s,
        min_ms: latency.min_ms(),
        avg_ms: latency.avg_ms(),
        max_ms: latency.max_ms(),
        sum_ms: latency.sum_ms(),
        percentiles: opts
            .percentiles
            .iter()
            .map(|&p| (p, latency.percentile_ms(p)))
            .collect(),
        thread_events: r.per_thread.iter().map(|t| t.events as f64).collect(),
        thread_busy_s: r
            .per_thread
            .iter()
            .map(|t| t.busy_ns as f64 / 1e9)
            .collect(),
    }));
    s.push_str(&extras(r, &latency));
    s
}

/// Figures sysbench does not print.
fn extras(r: &RunReport, latency: &Latencies) -> String {
    let mut s = String::from("psbench:\n");
    let open = r.dropped.is_some();
    let what = if open {
        "latency from intended start (ms)"
    } else {
        "latency (ms)"
    };
    s.push_str(&distribution_line(what, latency));
    if open {
        s.push_str(&distribution_line("schedule lag (ms)", &r.totals.lag()));
        s.push_str(&extra_line(
            "due but not started at the end",
            r.dropped.unwrap_or(0),
        ));
    }
    if r.class_names.len() > 1 {
        for (name, c) in r.class_names.iter().zip(&r.totals.classes) {
            s.push_str(&distribution_line(&format!("{name} (ms)"), &c.latency));
        }
    }
    let cpu = &r.cpu;
    s.push_str(&extra_line(
        "client CPU user/sys",
        format!("{:.3}s/{:.3}s", cpu.user_s, cpu.sys_s),
    ));
    s.push_str(&extra_line(
        "client CPU per transaction",
        format!("{:.2} us", cpu.us_per(r.totals.events)),
    ));
    s.push_str(&extra_line(
        "client CPU per query",
        format!("{:.2} us", cpu.us_per(r.totals.queries.total())),
    ));
    s.push_str(&extra_line(
        "client context switches per query",
        format!(
            "{:.2}",
            per(
                cpu.voluntary_context_switches + cpu.involuntary_context_switches,
                r.totals.queries.total()
            )
        ),
    ));
    s.push_str(&extra_line("server version", &r.server_version));
    s.push_str(&extra_line("random seed", r.seed));
    s.push('\n');
    s
}

fn per(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        n as f64 / d as f64
    }
}
