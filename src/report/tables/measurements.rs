//! The measurement tables of a report, computed once from a results document and rendered by
//! each output format: throughput absolute and relative, per-thread ratios, latency,
//! resources, status counters, cost mode and validity.

use crate::report::cells::{rounds, slots, steps, throughput_variants};
use crate::report::grid::{
    change_legend, column, flag_legend, label, Change, Column, Kind, Sense, Table, Value,
};
use crate::report::subject::{Pair, Subject};
use crate::report::tables::provenance::rounds_note;
use crate::results::{CellResult, Flag, StudyResults};
use crate::stats::{median, paired, unpaired, Comparison, Summary};
use std::collections::{BTreeMap, BTreeSet};

/// Latency percentiles of a cell, as the results document names them.
pub const PERCENTILES: [&str; 5] = ["p50", "p95", "p99", "p99.9", "max"];

/// One metric over the successful rounds of a (variant, step, threads).
pub fn values(
    res: &StudyResults,
    variant: &str,
    step: &str,
    threads: u32,
    f: impl Fn(&CellResult) -> f64,
) -> Vec<f64> {
    rounds(res, variant, step, threads)
        .filter(|c| c.ok)
        .map(f)
        .collect()
}

/// The median of a metric over successful rounds, if any round succeeded.
pub fn median_of(
    res: &StudyResults,
    variant: &str,
    step: &str,
    threads: u32,
    f: impl Fn(&CellResult) -> f64,
) -> Option<f64> {
    let v = values(res, variant, step, threads, f);
    (!v.is_empty()).then(|| median(&v))
}

/// Throughput of `pair.new` against `pair.base` at a (step, threads).
pub fn compare_tps(s: &Subject, pair: &Pair, step: &str, threads: u32) -> Option<Comparison> {
    compare_metric(s, pair, step, threads, |c| c.tps)
}

/// A per-cell metric of `pair.new` against `pair.base` at a (step, threads). Within a study
/// each round's two cells ran side by side (or, alternating, in slices of one stretch of
/// time), so the ratio is formed per round over the rounds where both succeeded: the interval
/// is over server instances, not slices. Two documents compared have no common rounds and are
/// compared unpaired.
pub fn compare_metric(
    s: &Subject,
    pair: &Pair,
    step: &str,
    threads: u32,
    f: impl Fn(&CellResult) -> f64,
) -> Option<Comparison> {
    let res = &s.results;
    let threshold = res.study.threshold;
    if !s.paired() {
        let base = values(res, &pair.base, step, threads, &f);
        let new = values(res, &pair.new, step, threads, &f);
        return (!base.is_empty() && !new.is_empty()).then(|| unpaired(&base, &new, threshold));
    }
    let by_round: Vec<(f64, f64)> = rounds(res, &pair.base, step, threads)
        .filter(|b| b.ok)
        .filter_map(|b| {
            rounds(res, &pair.new, step, threads)
                .find(|n| n.ok && n.key.round == b.key.round)
                .map(|n| (f(b), f(n)))
        })
        .collect();
    (!by_round.is_empty()).then(|| paired(&by_round, threshold))
}

/// Whether any round of a (variant, step, threads) has validity flags or failed.
pub fn flagged(res: &StudyResults, variant: &str, step: &str, threads: u32) -> bool {
    rounds(res, variant, step, threads).any(|c| !c.ok || !c.flags.is_empty())
}

pub fn pair_flagged(res: &StudyResults, p: &Pair, step: &str, threads: u32) -> bool {
    flagged(res, &p.new, step, threads) || flagged(res, &p.base, step, threads)
}

/// The legend lines of a table, with the flag line when a value is flagged.
pub fn legend_for(rows: &[Vec<Value>], mut legend: Vec<String>) -> Vec<String> {
    if rows
        .iter()
        .flatten()
        .any(|v| matches!(v, Value::Flagged(_)))
    {
        legend.push(flag_legend());
    }
    legend
}

/// The pairs with throughput results on both sides.
pub fn throughput_pairs(s: &Subject) -> Vec<&Pair> {
    let measured = throughput_variants(&s.results);
    s.pairs
        .iter()
        .filter(|p| measured.contains(&p.new) && measured.contains(&p.base))
        .collect()
}

/// What "per second" counts: transactions for sysbench cells, each Insert Benchmark step's own
/// unit (inserted rows, indexed rows, queries).
fn throughput_unit(res: &StudyResults) -> String {
    let mut units: Vec<String> = Vec::new();
    if res
        .cells
        .iter()
        .any(|c| c.insert_benchmark.is_none() && c.unit.is_none())
    {
        units.push("transactions per second".into());
    }
    let mut own: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for c in res.cells.iter().filter(|c| c.insert_benchmark.is_none()) {
        if let Some(unit) = &c.unit {
            let steps = own.entry(unit.as_str()).or_default();
            if !steps.contains(&c.key.step.as_str()) {
                steps.push(&c.key.step);
            }
        }
    }
    units.extend(
        own.iter()
            .map(|(unit, steps)| format!("{unit} per second ({})", steps.join(", "))),
    );
    let mut ib: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for c in &res.cells {
        if let Some(ib_step) = &c.insert_benchmark {
            let steps = ib.entry(ib_step.unit.as_str()).or_default();
            if !steps.contains(&c.key.step.as_str()) {
                steps.push(&c.key.step);
            }
        }
    }
    units.extend(
        ib.iter()
            .map(|(unit, steps)| format!("{unit} ({})", steps.join(", "))),
    );
    // No cells yet (a study stopped before its first throughput cell): say what a cell counts.
    if units.is_empty() {
        units.push("transactions (or rows, or queries) per second".into());
    }
    let mut text = units.join("; ");
    if let Some(first) = text.get(..1) {
        text = first.to_uppercase() + &text[1..];
    }
    text
}

fn missing_or(v: Option<f64>, why: &str) -> Value {
    v.map(Value::Number)
        .unwrap_or_else(|| Value::Missing(why.to_string()))
}

/// Absolute throughput per variant and (step, threads): median with the min–max over rounds.
pub fn absolute_throughput(s: &Subject) -> Table {
    let res = &s.results;
    let variants = throughput_variants(res);
    let mut columns = vec![label("step"), label("threads")];
    columns.extend(variants.iter().map(|v| column(v.as_str(), Kind::Spread)));
    let rows: Vec<Vec<Value>> = slots(res)
        .into_iter()
        .map(|(step, t)| {
            let mut row = vec![Value::Text(step.clone()), Value::Text(t.to_string())];
            row.extend(variants.iter().map(|v| {
                let vals = values(res, v, &step, t, |c| c.tps);
                match Summary::of(&vals) {
                    Some(x) => Value::Spread {
                        median: x.median,
                        min: x.min,
                        max: x.max,
                    }
                    .flagged_if(flagged(res, v, &step, t)),
                    None if rounds(res, v, &step, t).next().is_some() => {
                        Value::Missing("failed".into())
                    }
                    None => Value::Missing("—".into()),
                }
            }));
            row
        })
        .collect();
    Table {
        id: "throughput".into(),
        title: "Throughput".into(),
        note: format!(
            "{}: median [min–max] over the successful rounds; {}.",
            throughput_unit(res),
            rounds_note(res)
        ),
        legend: legend_for(&rows, Vec::new()),
        columns,
        rows,
        when_empty: "No throughput cells.".into(),
    }
}

/// Each variant relative to its base per (step, threads): new/base with its 95% interval.
pub fn relative_throughput(s: &Subject) -> Table {
    let pairs = throughput_pairs(s);
    let mut columns = vec![label("step"), label("threads")];
    columns.extend(pairs.iter().map(|p| column(p.label(), Kind::Change)));
    let rows = relative_rows(s, &pairs, |p, step, t| {
        compare_tps(s, p, step, t).map(Change::throughput)
    });
    Table {
        id: "relative".into(),
        title: "Throughput relative to the base".into(),
        note: relative_note(s).into(),
        legend: legend_for(&rows, change_legend(s.threshold(), Sense::Throughput)),
        columns,
        rows,
        when_empty: "No variant to compare with a base.".into(),
    }
}

/// Rows (step, threads) with a column per pair: each pair's change there, flagged when its
/// rounds are, or "—" when it was not measured.
pub fn relative_rows(
    s: &Subject,
    pairs: &[&Pair],
    change: impl Fn(&Pair, &str, u32) -> Option<Change>,
) -> Vec<Vec<Value>> {
    if pairs.is_empty() {
        return Vec::new();
    }
    slots(&s.results)
        .into_iter()
        .map(|(step, t)| {
            let mut row = vec![Value::Text(step.clone()), Value::Text(t.to_string())];
            row.extend(pairs.iter().map(|p| match change(p, &step, t) {
                Some(c) => Value::Change(c).flagged_if(pair_flagged(&s.results, p, &step, t)),
                None => Value::Missing("—".into()),
            }));
            row
        })
        .collect()
}

fn relative_note(s: &Subject) -> &'static str {
    if s.paired() {
        "new / base (the column names the base): the geometric mean of the ratios formed within each round, with its 95% t interval over rounds."
    } else {
        "new / base (the column names the base): the ratio of geometric means over each document's rounds, with its 95% Welch t interval (the documents share no rounds to pair)."
    }
}

/// Per step, new / base per thread count: the published per-thread ratio table's layout, in
/// the one direction every ratio of the report takes.
pub fn ratio_by_threads(s: &Subject) -> Table {
    let res = &s.results;
    let pairs = throughput_pairs(s);
    let all_threads: BTreeSet<u32> = res.cells.iter().map(|c| c.key.threads).collect();
    let mut columns = vec![label("step"), label("ratio")];
    columns.extend(
        all_threads
            .iter()
            .map(|t| column(format!("{t} thr"), Kind::Change)),
    );
    let mut rows = Vec::new();
    for step in steps(res) {
        for p in &pairs {
            let mut row = vec![Value::Text(step.clone()), Value::Text(p.label())];
            row.extend(all_threads.iter().map(|t| {
                match compare_tps(s, p, &step, *t) {
                    Some(cmp) => Value::Change(Change::throughput(cmp))
                        .flagged_if(pair_flagged(res, p, &step, *t)),
                    None => Value::Missing("—".into()),
                }
            }));
            rows.push(row);
        }
    }
    Table {
        id: "ratio_by_threads".into(),
        title: "Ratio per thread count".into(),
        note: "The variant's throughput divided by the base's (new / base, as every ratio here; the \"without PS / with PS\" tables of Vadim Tkachenko's Performance Schema overhead are its inverse): below 1.0 the variant is slower.".into(),
        legend: legend_for(&rows, change_legend(s.threshold(), Sense::Throughput)),
        columns,
        rows,
        when_empty: "No variant to compare with a base.".into(),
    }
}

/// Rows of (step, threads, variant) for the per-variant tables.
pub(super) fn variant_rows(res: &StudyResults) -> Vec<(String, u32, String)> {
    let variants = throughput_variants(res);
    slots(res)
        .into_iter()
        .flat_map(|(step, t)| {
            variants
                .iter()
                .filter(|v| rounds(res, v, &step, t).next().is_some())
                .map(|v| (step.clone(), t, v.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Medians over rounds of per-cell metrics, a row per (step, threads, variant); `metric(c, i)`
/// is column `i` of cell `c`.
pub fn per_variant_table(
    res: &StudyResults,
    names: &[String],
    metric: &dyn Fn(&CellResult, usize) -> f64,
) -> (Vec<Column>, Vec<Vec<Value>>) {
    let mut columns = vec![label("step"), label("threads"), label("variant")];
    columns.extend(names.iter().map(|n| column(n.as_str(), Kind::Number)));
    let rows = variant_rows(res)
        .into_iter()
        .map(|(step, t, v)| {
            let mut row = vec![
                Value::Text(step.clone()),
                Value::Text(t.to_string()),
                Value::Text(v.clone()),
            ];
            row.extend(
                (0..names.len())
                    .map(|i| missing_or(median_of(res, &v, &step, t, |c| metric(c, i)), "failed")),
            );
            row
        })
        .collect();
    (columns, rows)
}

/// Latency percentiles, medians over rounds.
pub fn latency(s: &Subject) -> Table {
    let names: Vec<String> = PERCENTILES.iter().map(|p| format!("{p} ms")).collect();
    let (columns, rows) = per_variant_table(&s.results, &names, &|c, i| {
        c.latency_ms
            .get(PERCENTILES[i])
            .copied()
            .unwrap_or(f64::NAN)
    });
    Table {
        id: "latency".into(),
        title: "Latency".into(),
        note: "Transaction latency in milliseconds (from the intended start in rate-limited runs): the median over rounds of each round's percentile.".into(),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: "No throughput cells.".into(),
    }
}

type Metric = fn(&CellResult) -> f64;

const RESOURCES: [(&str, Metric); 10] = [
    ("server cpu µs/txn", |c| c.resources.server_cpu_us_per_txn),
    ("client cpu µs/txn", |c| c.resources.client_cpu_us_per_txn),
    ("server cs/txn", |c| c.resources.server_cs_per_txn),
    ("client cs/txn", |c| c.resources.client_cs_per_txn),
    ("rKB/txn", |c| c.resources.read_kb_per_txn),
    ("wKB/txn", |c| c.resources.write_kb_per_txn),
    ("server cpus", |c| c.resources.server_cpu_util),
    ("client cpus", |c| c.resources.client_cpu_util),
    ("server RSS MB", |c| c.resources.server_rss_mb),
    ("PFS memory MB", |c| c.resources.pfs_memory_mb),
];

/// Per-transaction resources of server and client, medians over rounds.
pub fn resources(s: &Subject) -> Table {
    let names: Vec<String> = RESOURCES.iter().map(|(n, _)| n.to_string()).collect();
    let (columns, rows) = per_variant_table(&s.results, &names, &|c, i| (RESOURCES[i].1)(c));
    Table {
        id: "resources".into(),
        title: "Resources per transaction".into(),
        note: "Medians over rounds. CPU and context switches (cs) from /proc of the server and of the client; rKB/wKB: the server's storage reads and writes (/proc/PID/io); cpus: cores busy on average.".into(),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: "No throughput cells.".into(),
    }
}

/// SHOW GLOBAL STATUS deltas per transaction: a row per counter, the variants side by side.
pub fn status(s: &Subject) -> Table {
    let res = &s.results;
    let variants = throughput_variants(res);
    let counters: BTreeSet<&String> = res
        .cells
        .iter()
        .flat_map(|c| c.resources.status_per_txn.keys())
        .collect();
    let mut columns = vec![label("step"), label("threads"), label("counter")];
    columns.extend(variants.iter().map(|v| column(v.as_str(), Kind::Number)));
    let mut rows = Vec::new();
    for (step, t) in slots(res) {
        for k in &counters {
            let per_variant: Vec<Value> = variants
                .iter()
                .map(|v| {
                    let vals: Vec<f64> = rounds(res, v, &step, t)
                        .filter(|c| c.ok)
                        .filter_map(|c| c.resources.status_per_txn.get(*k).copied())
                        .collect();
                    if vals.is_empty() {
                        Value::Missing("—".into())
                    } else {
                        Value::Number(median(&vals))
                    }
                })
                .collect();
            // A counter that stayed at zero everywhere says nothing.
            if per_variant
                .iter()
                .all(|v| matches!(v, Value::Missing(_) | Value::Number(0.0)))
            {
                continue;
            }
            let mut row = vec![
                Value::Text(step.clone()),
                Value::Text(t.to_string()),
                Value::Text(k.to_string()),
            ];
            row.extend(per_variant);
            rows.push(row);
        }
    }
    Table {
        id: "status".into(),
        title: "Server status counters per transaction".into(),
        note: "SHOW GLOBAL STATUS after minus before the measured window, divided by transactions; medians over rounds. Counters that stayed at zero are left out.".into(),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: "No status counters recorded.".into(),
    }
}

pub fn flag_name(f: Flag) -> &'static str {
    match f {
        Flag::ClientBound => "client-bound",
        Flag::Contaminated => "contaminated",
        Flag::Errors => "errors",
        Flag::NotSteady => "not steady",
        Flag::RateNotSustained => "rate not sustained",
        Flag::NotIoBound => "not io-bound",
        Flag::NotCached => "not cached",
        Flag::HostSaturated => "host-saturated",
    }
}

/// Cells with validity flags or failed rounds; nothing when every round is clean.
pub fn validity(s: &Subject) -> Table {
    let res = &s.results;
    let mut rows = Vec::new();
    for (step, t, v) in variant_rows(res) {
        let all: Vec<&CellResult> = rounds(res, &v, &step, t).collect();
        let mut flags: BTreeMap<Flag, usize> = BTreeMap::new();
        for c in &all {
            for f in &c.flags {
                *flags.entry(*f).or_default() += 1;
            }
        }
        let failed: Vec<&CellResult> = all.iter().copied().filter(|c| !c.ok).collect();
        let retried = all.iter().filter(|c| c.attempts > 1).count();
        if flags.is_empty() && failed.is_empty() && retried == 0 {
            continue;
        }
        let flag_text = flags
            .iter()
            .map(|(f, n)| format!("{} ×{n}", flag_name(*f)))
            .collect::<Vec<_>>()
            .join(", ");
        let errors = failed
            .iter()
            .filter_map(|c| c.error.as_deref())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
            .join("; ");
        rows.push(vec![
            Value::Text(step.clone()),
            Value::Text(t.to_string()),
            Value::Text(v.clone()),
            Value::Text(format!("{}/{}", all.len() - failed.len(), all.len())),
            Value::Text(retried.to_string()),
            Value::Text(flag_text),
            Value::Text(errors),
        ]);
    }
    for c in res.cost.iter().filter(|c| !c.ok || c.unstable) {
        let estimates = c
            .estimates
            .iter()
            .map(|e| format!("{e:.0}"))
            .collect::<Vec<_>>()
            .join(", ");
        let attempts = c.windows.iter().map(|w| w.attempt).max().unwrap_or(1);
        rows.push(vec![
            Value::Text(c.step.clone()),
            Value::Text("cost".into()),
            Value::Text(c.variant.clone()),
            Value::Text(if c.ok { "1/1" } else { "0/1" }.into()),
            Value::Text(attempts.saturating_sub(1).to_string()),
            Value::Text(if c.unstable {
                format!("cost unstable (estimates {estimates})")
            } else {
                String::new()
            }),
            Value::Text(c.error.clone().unwrap_or_default()),
        ]);
    }
    let l = &res.study.limits;
    Table {
        id: "validity".into(),
        title: "Validity".into(),
        note: format!(
            "Rounds with validity flags, retried or failed. Flags: client-bound (client above {:.0}% of a core), contaminated (other processes above {:.0}% of a core; the cell is retried), errors (above {} per transaction), not steady (after where steady state begins, the first and last thirds differ by more than {:.0}% and beyond their noise), rate not sustained, not io-bound / not cached (the cell's disk reads per lookup outside its regime){}.",
            l.client_bound_core_share * 100.0,
            l.foreign_cpu_core_share * 100.0,
            l.error_rate,
            l.trend * 100.0,
            crate::report::tables::saturation::flag_note(res)
        ),
        columns: vec![
            label("step"),
            label("threads"),
            label("variant"),
            label("ok rounds"),
            label("retried"),
            label("flags (rounds)"),
            label("errors"),
        ],
        rows,
        legend: crate::report::tables::saturation::legend(res),
        when_empty: "Every round ran clean: no validity flags, retries or failures.".into(),
    }
}
