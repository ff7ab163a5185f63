//! Text output in sysbench 1.0.20's shapes (docs/sysbench-compat.md#output), so that scripts that read
//! sysbench read psbench, followed by psbench's own lines.

use crate::driver::{Latencies, Window};
use crate::workloads::QueryCounters;
use std::fmt::Write;

/// `[ 1s ] thds: 4 tps: ... qps: ... (r/w/o: ...) lat (ms,95%): ... err/s: ... reconn/s: ...`
pub fn interval_line(f: &Window) -> String {
    let per_s = |n: u64| {
        if f.seconds > 0.0 {
            n as f64 / f.seconds
        } else {
            0.0
        }
    };
    format!(
        "[ {}s ] thds: {} tps: {:4.2} qps: {:4.2} (r/w/o: {:4.2}/{:4.2}/{:4.2}) lat (ms,{}%): {:4.2} err/s: {:4.2} reconn/s: {:4.2}",
        f.elapsed_label_s,
        f.threads,
        per_s(f.events),
        per_s(f.queries.total()),
        per_s(f.queries.reads),
        per_s(f.queries.writes),
        per_s(f.queries.other),
        f.percentile,
        f.percentile_ms,
        per_s(f.errors),
        per_s(f.reconnects),
    )
}

/// The second line under `--rate`.
pub fn queue_line(elapsed_label_s: u64, queue: usize, concurrency: usize) -> String {
    format!("[ {elapsed_label_s}s ] queue length: {queue}, concurrency: {concurrency}")
}

/// The figures of sysbench's final report.
pub struct FinalFigures {
    pub queries: QueryCounters,
    pub events: u64,
    pub errors: u64,
    pub reconnects: u64,
    pub total_time_s: f64,
    pub min_ms: f64,
    pub avg_ms: f64,
    pub max_ms: f64,
    pub sum_ms: f64,
    /// (percentile, value ms) for each `--percentile`.
    pub percentiles: Vec<(f64, f64)>,
    /// Events per thread and busy seconds per thread (for "Threads fairness").
    pub thread_events: Vec<f64>,
    pub thread_busy_s: Vec<f64>,
}

/// Values start at column 42, as in sysbench.
fn kv(label: &str, value: impl std::fmt::Display) -> String {
    format!("{label:<41}{value}\n")
}

/// Latency lines end at column 53.
fn latency_kv(label: &str, ms: f64) -> String {
    let width = 53usize.saturating_sub(label.len()).max(1);
    format!("{label}{:>width$.2}\n", ms)
}

fn percentile_label(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("        {:3}th percentile:", p as u64)
    } else {
        format!("        {p:3}th percentile:")
    }
}

/// The report sysbench prints at the end of `run`, byte for byte in its layout.
pub fn sysbench_report(f: &FinalFigures) -> String {
    let rate = |n: u64| {
        if f.total_time_s > 0.0 {
            n as f64 / f.total_time_s
        } else {
            0.0
        }
    };
    let counted = |n: u64| format!("{n:<6} ({:.2} per sec.)", rate(n));
    let mut s = String::new();
    s.push_str("SQL statistics:\n");
    s.push_str("    queries performed:\n");
    s.push_str(&kv("        read:", f.queries.reads));
    s.push_str(&kv("        write:", f.queries.writes));
    s.push_str(&kv("        other:", f.queries.other));
    s.push_str(&kv("        total:", f.queries.total()));
    s.push_str(&kv("    transactions:", counted(f.events)));
    s.push_str(&kv("    queries:", counted(f.queries.total())));
    s.push_str(&kv("    ignored errors:", counted(f.errors)));
    s.push_str(&kv("    reconnects:", counted(f.reconnects)));
    s.push('\n');
    s.push_str("General statistics:\n");
    s.push_str(&kv("    total time:", format!("{:.4}s", f.total_time_s)));
    s.push_str(&kv("    total number of events:", f.events));
    s.push('\n');
    s.push_str("Latency (ms):\n");
    s.push_str(&latency_kv("         min:", f.min_ms));
    s.push_str(&latency_kv("         avg:", f.avg_ms));
    s.push_str(&latency_kv("         max:", f.max_ms));
    for (p, v) in &f.percentiles {
        s.push_str(&latency_kv(&percentile_label(*p), *v));
    }
    s.push_str(&latency_kv("         sum:", f.sum_ms));
    s.push('\n');
    s.push_str("Threads fairness:\n");
    let (ea, es) = mean_stddev(&f.thread_events);
    let (ta, ts) = mean_stddev(&f.thread_busy_s);
    let _ = writeln!(s, "{:<35}{ea:.4}/{es:3.2}", "    events (avg/stddev):");
    let _ = writeln!(
        s,
        "{:<35}{ta:.4}/{ts:3.2}",
        "    execution time (avg/stddev):"
    );
    s.push('\n');
    s
}

/// Mean and population standard deviation, as sysbench computes fairness.
fn mean_stddev(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// One `psbench extras` line: `label  p50/p95/p99/p99.9/max` in ms.
pub fn distribution_line(label: &str, l: &Latencies) -> String {
    kv(
        &format!("    {label} p50/p95/p99/p99.9/max:"),
        format!(
            "{:.3}/{:.3}/{:.3}/{:.3}/{:.3}",
            l.percentile_ms(50.0),
            l.percentile_ms(95.0),
            l.percentile_ms(99.0),
            l.percentile_ms(99.9),
            l.max_ms()
        ),
    )
}

/// A `label: value` line of the extras block, aligned like the rest of the report.
pub fn extra_line(label: &str, value: impl std::fmt::Display) -> String {
    kv(&format!("    {label}:"), value)
}

/// sysbench's `--histogram` output: its 1024 logarithmic buckets from 0.001 ms to 100 s,
/// non-empty ones only, bars scaled to 40 characters, then a line with a single space.
pub fn histogram(l: &Latencies) -> String {
    const BUCKETS: usize = 1024;
    let (lo, hi) = (0.001f64.ln(), 100_000f64.ln());
    let mut counts = vec![0u64; BUCKETS];
    for (ns, n) in l.recorded() {
        let v = (ns as f64 / 1e6).max(1e-9).ln();
        let i = ((v - lo) * (BUCKETS - 1) as f64 / (hi - lo)).round();
        counts[i.clamp(0.0, (BUCKETS - 1) as f64) as usize] += n;
    }
    let top = counts.iter().copied().max().unwrap_or(0).max(1);
    let mut s = String::from("Latency histogram (values are in milliseconds)\n");
    s.push_str("       value  ------------- distribution ------------- count\n");
    for (i, &n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
        let value = (i as f64 * (hi - lo) / (BUCKETS - 1) as f64 + lo).exp();
        let bar = "*".repeat((n as f64 * 40.0 / top as f64).round() as usize);
        let _ = writeln!(s, "{value:12.3} |{bar:<40} {n}");
    }
    s.push_str(" \n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real sysbench report of docs/sysbench-compat.md#output (oltp_read_write, 4 threads, --time=5).
    const SYSBENCH: &str = "SQL statistics:
    queries performed:
        read:                            54460
        write:                           15560
        other:                           7780
        total:                           77800
    transactions:                        3890   (776.85 per sec.)
    queries:                             77800  (15537.08 per sec.)
    ignored errors:                      0      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          5.0068s
    total number of events:              3890

Latency (ms):
         min:                                    1.36
         avg:                                    5.14
         max:                                  117.27
         95th percentile:                        9.22
         sum:                                20001.64

Threads fairness:
    events (avg/stddev):           972.5000/48.10
    execution time (avg/stddev):   5.0004/0.00

";

    #[test]
    fn final_report_matches_sysbench_layout() {
        let f = FinalFigures {
            queries: QueryCounters {
                reads: 54460,
                writes: 15560,
                other: 7780,
            },
            events: 3890,
            errors: 0,
            reconnects: 0,
            total_time_s: 5.0068,
            min_ms: 1.36,
            avg_ms: 5.14,
            max_ms: 117.27,
            sum_ms: 20001.64,
            percentiles: vec![(95.0, 9.22)],
            // mean 972.5, population stddev 48.10
            thread_events: vec![1020.6, 924.4, 1020.6, 924.4],
            thread_busy_s: vec![5.0004; 4],
        };
        let got = sysbench_report(&f);
        // 3890 / 5.0068 = 776.94; sysbench divided by its own slightly later clock reading.
        let want = SYSBENCH
            .replace("776.85", "776.94")
            .replace("15537.08", "15538.87");
        assert_eq!(got, want);
    }

    #[test]
    fn interval_line_matches_sysbench() {
        let f = Window {
            elapsed_label_s: 1,
            threads: 2,
            seconds: 1.0,
            events: 955,
            queries: QueryCounters {
                reads: 13373,
                writes: 3821,
                other: 1912,
            },
            errors: 0,
            reconnects: 0,
            percentile: 95.0,
            percentile_ms: 3.43,
            queue: None,
        };
        assert_eq!(
            interval_line(&f),
            "[ 1s ] thds: 2 tps: 955.00 qps: 19106.00 (r/w/o: 13373.00/3821.00/1912.00) lat (ms,95%): 3.43 err/s: 0.00 reconn/s: 0.00"
        );
        assert_eq!(
            queue_line(3, 3001, 1),
            "[ 3s ] queue length: 3001, concurrency: 1"
        );
    }

    #[test]
    fn histogram_rows_and_scale() {
        let mut l = Latencies::new();
        for _ in 0..10 {
            l.record(1_392_000);
        }
        l.record(116_802_000);
        let h = histogram(&l);
        let rows: Vec<&str> = h.lines().skip(2).collect();
        assert_eq!(rows.len(), 3, "{h}");
        assert!(
            rows[0].starts_with("       1.392 |****************************************"),
            "{h}"
        );
        assert!(rows[0].ends_with(" 10"));
        assert!(rows[1].starts_with("     116.802 |"), "{h}");
        assert_eq!(rows[2], " ");
    }
}
