//! A study merged from shards run on several hosts (docs/sharding.md): the base's throughput
//! on each host and the spread between hosts, beside each variant's effect, so that a reader
//! sees whether the machines differ more than the variants do.

use crate::report::cells::{rounds, slots};
use crate::report::grid::{change_legend, column, label, Change, Kind, Sense, Table, Value};
use crate::report::subject::Subject;
use crate::report::tables::measurements::compare_tps;
use crate::stats::median;

/// The base's median throughput on each host at a (step, threads), None where a host has
/// no successful round of it.
fn per_host(s: &Subject, hosts: &[String], base: &str, step: &str, t: u32) -> Vec<Option<f64>> {
    let res = &s.results;
    hosts
        .iter()
        .map(|h| {
            let tps: Vec<f64> = rounds(res, base, step, t)
                .filter(|c| c.ok && res.sharding.host_of(c.key.round) == Some(h))
                .map(|c| c.tps)
                .collect();
            (!tps.is_empty()).then(|| median(&tps))
        })
        .collect()
}

/// The hosts, and the base, of a study whose rounds ran on more than one host.
fn hosts_and_base(s: &Subject) -> Option<(Vec<String>, String)> {
    let hosts = s.results.sharding.hosts();
    if hosts.len() < 2 || s.sources.len() != 1 {
        return None;
    }
    Some((hosts, s.pairs.first()?.base.clone()))
}

/// The widest host-to-host spread of the base, beside the largest effect at that
/// (step, threads): one sentence.
pub fn findings(s: &Subject) -> Vec<String> {
    let Some((hosts, base)) = hosts_and_base(s) else {
        return Vec::new();
    };
    // (spread, step, threads, slowest host, fastest host)
    type Widest = (f64, String, u32, (String, f64), (String, f64));
    let mut widest: Option<Widest> = None;
    for (step, t) in slots(&s.results) {
        let seen: Vec<(String, f64)> = hosts
            .iter()
            .zip(per_host(s, &hosts, &base, &step, t))
            .filter_map(|(h, m)| m.map(|m| (h.clone(), m)))
            .collect();
        if seen.len() < 2 {
            continue;
        }
        let lo = seen
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap()
            .clone();
        let hi = seen
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap()
            .clone();
        let spread = (hi.1 - lo.1) / lo.1;
        if widest.as_ref().is_none_or(|w| spread > w.0) {
            widest = Some((spread, step, t, lo, hi));
        }
    }
    let Some((spread, step, t, lo, hi)) = widest else {
        return Vec::new();
    };
    let effects: Vec<(String, f64)> = s
        .pairs
        .iter()
        .filter(|p| p.base == base)
        .filter_map(|p| compare_tps(s, p, &step, t).map(|c| (p.label(), c.ratio)))
        .collect();
    let largest = effects
        .iter()
        .max_by(|a, b| (a.1 - 1.0).abs().total_cmp(&(b.1 - 1.0).abs()));
    let threads = if t == 1 {
        "1 thread".to_string()
    } else {
        format!("{t} threads")
    };
    let mut line = format!(
        "Hosts: {base} ran {:.1}% faster on {} than on {} ({step} at {threads}; {} hosts)",
        spread * 100.0,
        hi.0,
        lo.0,
        hosts.len()
    );
    match largest {
        Some((label, r)) if spread > (r - 1.0).abs() => line.push_str(&format!(
            ", more than the largest effect there ({label} {r:.3}): one of these hosts alone could not have told that effect from the host's."
        )),
        Some((label, r)) => line.push_str(&format!(
            ", less than the largest effect there ({label} {r:.3})."
        )),
        None => line.push('.'),
    }
    vec![line]
}

/// The table, when the document's rounds ran on more than one host.
pub fn host_spread(s: &Subject) -> Option<Table> {
    let res = &s.results;
    let (hosts, base) = hosts_and_base(s)?;
    let pairs: Vec<_> = s.pairs.iter().filter(|p| p.base == base).collect();
    let mut columns = vec![label("step"), label("threads")];
    columns.extend(
        hosts
            .iter()
            .map(|h| column(format!("{base} on {h}"), Kind::Number)),
    );
    columns.push(column("host spread %", Kind::Number));
    columns.extend(pairs.iter().map(|p| column(p.label(), Kind::Change)));
    let rows: Vec<Vec<Value>> = slots(res)
        .into_iter()
        .map(|(step, t)| {
            let per_host = per_host(s, &hosts, &base, &step, t);
            let mut row = vec![Value::Text(step.clone()), Value::Text(t.to_string())];
            row.extend(per_host.iter().map(|m| match m {
                Some(v) => Value::Number(*v),
                None => Value::Missing("—".into()),
            }));
            let seen: Vec<f64> = per_host.iter().flatten().copied().collect();
            row.push(if seen.len() >= 2 {
                let lo = seen.iter().copied().fold(f64::MAX, f64::min);
                let hi = seen.iter().copied().fold(f64::MIN, f64::max);
                Value::Number((hi - lo) / lo * 100.0)
            } else {
                Value::Missing("—".into())
            });
            row.extend(pairs.iter().map(|p| match compare_tps(s, p, &step, t) {
                Some(cmp) => Value::Change(Change::throughput(cmp)),
                None => Value::Missing("—".into()),
            }));
            row
        })
        .collect();
    Some(Table {
        id: "hosts".into(),
        title: "Hosts".into(),
        note: format!(
            "The base's throughput on each host (median over that host's rounds), the spread between hosts ((highest − lowest) / lowest of those medians), and beside it each variant's effect, its ratios formed within each round on one host. Where the hosts differ more than a variant does, a study on one host could not have told the variant's effect from that host's. {} rounds on {} hosts.",
            res.sharding.rounds.len(),
            hosts.len()
        ),
        legend: change_legend(s.threshold(), Sense::Throughput),
        columns,
        rows,
        when_empty: "No throughput cells.".into(),
    })
}
