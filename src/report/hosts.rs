//! A study merged from shards run on several hosts (docs/sharding.md): the base's throughput
//! on each host and the spread between hosts, beside each variant's effect, so that a reader
//! sees whether the machines differ more than the variants do.

use super::cells::{rounds, slots};
use super::grid::{change_legend, column, label, Change, Kind, Table, Value};
use super::subject::Subject;
use super::tables::compare_tps;
use crate::stats::median;

/// The table, when the document's rounds ran on more than one host.
pub fn host_spread(s: &Subject) -> Option<Table> {
    let res = &s.results;
    let hosts = res.sharding.hosts();
    if hosts.len() < 2 || s.sources.len() != 1 {
        return None;
    }
    let base = s.pairs.first().map(|p| p.base.clone())?;
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
            let per_host: Vec<Option<f64>> = hosts
                .iter()
                .map(|h| {
                    let tps: Vec<f64> = rounds(res, &base, &step, t)
                        .filter(|c| c.ok && res.sharding.host_of(c.key.round) == Some(h))
                        .map(|c| c.tps)
                        .collect();
                    (!tps.is_empty()).then(|| median(&tps))
                })
                .collect();
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
                Some(cmp) => Value::Change(Change {
                    cmp,
                    inverted: false,
                }),
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
        legend: change_legend(s.threshold()),
        columns,
        rows,
        when_empty: "No throughput cells.".into(),
    })
}
