//! The Bencher Metric Format (https://bencher.dev/docs/reference/bencher-metric-format): JSON
//! keyed by benchmark, then by measure, each with `value` and its interval as `lower_value`
//! and `upper_value`, which Bencher (and any tracker reading BMF) takes from any harness.
//!
//! One benchmark per variant, step and thread count (`default/point_select/2 threads`, and
//! `default/point_select/cost mode` for instruction counts); measures `throughput` (per
//! second, mean over rounds with its 95% t interval), `server-cpu-per-transaction`
//! (microseconds, likewise) and `instructions-per-transaction` (or per row or query: the count
//! with the range of its repeats).

use crate::report::cells::{rounds, slots, throughput_variants};
use crate::report::subject::Subject;
use crate::results::CellResult;
use crate::stats::compare::t_interval;
use serde_json::{json, Map, Value};

/// value with its interval: the mean of the rounds with its 95% t interval (one round: the
/// value alone as its interval).
fn measure(values: &[f64]) -> Option<Value> {
    if values.is_empty() {
        return None;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let (low, high) = t_interval(values)
        .filter(|(l, h)| l.is_finite() && h.is_finite())
        .map_or((mean, mean), |(l, h)| (l.min(mean), h.max(mean)));
    Some(json!({ "value": mean, "lower_value": low, "upper_value": high }))
}

pub fn render(s: &Subject) -> String {
    let res = &s.results;
    let mut out = Map::new();
    for v in throughput_variants(res) {
        for (step, t) in slots(res) {
            let ok: Vec<&CellResult> = rounds(res, &v, &step, t).filter(|c| c.ok).collect();
            let of = |f: fn(&CellResult) -> f64| -> Vec<f64> {
                ok.iter()
                    .map(|c| f(c))
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .collect()
            };
            let mut measures = Map::new();
            if let Some(m) = measure(&of(|c| c.tps)) {
                measures.insert("throughput".into(), m);
            }
            if let Some(m) = measure(&of(|c| c.resources.server_cpu_us_per_txn)) {
                measures.insert("server-cpu-per-transaction".into(), m);
            }
            if !measures.is_empty() {
                let threads = if t == 1 {
                    "1 thread".into()
                } else {
                    format!("{t} threads")
                };
                out.insert(format!("{v}/{step}/{threads}"), Value::Object(measures));
            }
        }
    }
    for c in res.cost.iter().filter(|c| c.ok && c.ir_per_txn > 0.0) {
        let (low, high) = c.repeat_range();
        let m = json!({
            "value": c.ir_per_txn,
            "lower_value": low.min(c.ir_per_txn),
            "upper_value": high.max(c.ir_per_txn),
        });
        let name = format!("instructions-per-{}", c.unit.name());
        let entry = out
            .entry(format!("{}/{}/cost mode", c.variant, c.step))
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(measures) = entry {
            measures.insert(name, m);
        }
    }
    serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_else(|_| "{}".into()) + "\n"
}
