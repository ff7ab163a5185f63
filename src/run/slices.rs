//! An alternating cell from its slices: counts and times summed, per-transaction figures
//! weighted by each slice's transactions, CPU shares by its seconds, latency percentiles from
//! the merged histograms, and every slice kept as a record.

use crate::driver::Latencies;
use crate::results::study::Limits;
use crate::results::{CellKey, CellResult, DeviceIo, Flag, RegimeCheck, Resources, SliceRecord};
use crate::stats::steady::steady_state;
use std::collections::BTreeMap;

/// One measured slice: where it ran in the cell's sequence and what it measured.
pub struct Slice {
    pub position: u32,
    pub at_s: f64,
    pub cell: CellResult,
}

/// The cell a variant's slices make together.
pub fn combine(key: CellKey, slices: &[Slice], latency: &Latencies, limits: &Limits) -> CellResult {
    let cells: Vec<&CellResult> = slices.iter().map(|s| &s.cell).collect();
    let wall: f64 = cells.iter().map(|c| c.duration_s).sum::<f64>().max(1e-9);
    let txns: u64 = cells.iter().map(|c| c.transactions).sum();
    let queries: u64 = cells.iter().map(|c| c.queries).sum();
    // Per-transaction figures weighted by transactions, shares of a CPU by seconds.
    let per_txn = |f: &dyn Fn(&CellResult) -> f64| -> f64 {
        if txns == 0 {
            return 0.0;
        }
        cells
            .iter()
            .map(|c| f(c) * c.transactions as f64)
            .sum::<f64>()
            / txns as f64
    };
    let per_s = |f: &dyn Fn(&CellResult) -> f64| -> f64 {
        cells.iter().map(|c| f(c) * c.duration_s).sum::<f64>() / wall
    };
    let r = |c: &CellResult| c.resources.clone();
    let mut status_per_txn = BTreeMap::new();
    for c in &cells {
        for name in c.resources.status_per_txn.keys() {
            status_per_txn.entry(name.clone()).or_insert_with(|| {
                per_txn(&|c| c.resources.status_per_txn.get(name).copied().unwrap_or(0.0))
            });
        }
    }
    let device = cells
        .iter()
        .all(|c| c.resources.device.is_some())
        .then(|| DeviceIo {
            read_mb_s: per_s(&|c| r(c).device.unwrap_or_default().read_mb_s),
            write_mb_s: per_s(&|c| r(c).device.unwrap_or_default().write_mb_s),
            read_iops: per_s(&|c| r(c).device.unwrap_or_default().read_iops),
            write_iops: per_s(&|c| r(c).device.unwrap_or_default().write_iops),
        });
    let last = cells.last();
    let resources = Resources {
        server_cpu_us_per_txn: per_txn(&|c| c.resources.server_cpu_us_per_txn),
        client_cpu_us_per_txn: per_txn(&|c| c.resources.client_cpu_us_per_txn),
        foreign_cpu_s: cells.iter().map(|c| c.resources.foreign_cpu_s).sum(),
        server_cpu_util: per_s(&|c| c.resources.server_cpu_util),
        client_cpu_util: per_s(&|c| c.resources.client_cpu_util),
        server_cs_per_txn: per_txn(&|c| c.resources.server_cs_per_txn),
        client_cs_per_txn: per_txn(&|c| c.resources.client_cs_per_txn),
        read_kb_per_txn: per_txn(&|c| c.resources.read_kb_per_txn),
        write_kb_per_txn: per_txn(&|c| c.resources.write_kb_per_txn),
        server_rss_mb: last.map_or(0.0, |c| c.resources.server_rss_mb),
        pfs_memory_mb: last.map_or(0.0, |c| c.resources.pfs_memory_mb),
        status_per_txn,
        device,
        idle_servers_cpu_util: Some(per_s(&|c| c.resources.idle_servers_cpu_util.unwrap_or(0.0))),
    };
    let per_second_tps: Vec<f64> = cells
        .iter()
        .flat_map(|c| c.per_second_tps.iter().copied())
        .collect();
    // The trend over the whole cell, judged on its slices' seconds in the order they ran.
    let steady = steady_state(&per_second_tps, limits.trend);
    let mut flags: Vec<Flag> = cells
        .iter()
        .flat_map(|c| c.flags.iter().copied())
        .filter(|f| *f != Flag::NotSteady)
        .collect();
    if steady.is_some_and(|s| !s.settled) {
        flags.push(Flag::NotSteady);
    }
    flags.sort();
    flags.dedup();
    let regime = cells
        .iter()
        .find_map(|c| c.regime)
        .map(|first| RegimeCheck {
            asked: first.asked,
            disk_reads_per_lookup: per_txn(&|c| c.regime.map_or(0.0, |r| r.disk_reads_per_lookup)),
        });
    let mut latency_ms = BTreeMap::new();
    for (k, p) in [("p50", 50.0), ("p95", 95.0), ("p99", 99.0), ("p99.9", 99.9)] {
        latency_ms.insert(k.to_string(), latency.percentile_ms(p));
    }
    latency_ms.insert("max".into(), latency.max_ms());
    latency_ms.insert("avg".into(), latency.avg_ms());
    CellResult {
        key,
        ok: true,
        error: None,
        attempts: cells.iter().map(|c| c.attempts).max().unwrap_or(1),
        duration_s: wall,
        transactions: txns,
        queries,
        tps: txns as f64 / wall,
        qps: queries as f64 / wall,
        errors: cells.iter().map(|c| c.errors).sum(),
        reconnects: cells.iter().map(|c| c.reconnects).sum(),
        latency_ms,
        per_second_tps,
        per_second_device: cells
            .iter()
            .flat_map(|c| c.per_second_device.iter().copied())
            .collect(),
        steady_from_s: None,
        regime,
        resources,
        flags,
        profile: None,
        insert_benchmark: None,
        unit: None,
        slices: slices.iter().map(record).collect(),
        classes: classes_of(&cells, wall),
    }
}

/// The classes' transactions over every slice; their percentiles are the slices' own
/// (a slice's histograms are not kept to merge).
fn classes_of(cells: &[&CellResult], wall: f64) -> Vec<crate::results::ClassResult> {
    let mut out: Vec<crate::results::ClassResult> = Vec::new();
    for c in cells {
        for (i, class) in c.classes.iter().enumerate() {
            match out.get_mut(i) {
                Some(o) => {
                    o.transactions += class.transactions;
                    o.errors += class.errors;
                }
                None => out.push(crate::results::ClassResult {
                    latency_ms: BTreeMap::new(),
                    statements: Vec::new(),
                    ..class.clone()
                }),
            }
        }
    }
    for o in &mut out {
        o.tps = o.transactions as f64 / wall;
    }
    out
}

fn record(s: &Slice) -> SliceRecord {
    let c = &s.cell;
    SliceRecord {
        position: s.position,
        at_s: s.at_s,
        duration_s: c.duration_s,
        transactions: c.transactions,
        tps: c.tps,
        server_cpu_us_per_txn: c.resources.server_cpu_us_per_txn,
        client_cpu_us_per_txn: c.resources.client_cpu_us_per_txn,
        idle_servers_cpu_util: c.resources.idle_servers_cpu_util.unwrap_or(0.0),
        flags: c.flags.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(position: u32, txns: u64, secs: f64, cpu_us: f64, flags: Vec<Flag>) -> Slice {
        let mut cell = crate::run::cell::failed(
            CellKey {
                round: 0,
                variant: "a".into(),
                step: "point_select".into(),
                threads: 2,
            },
            String::new(),
        );
        cell.ok = true;
        cell.transactions = txns;
        cell.duration_s = secs;
        cell.tps = txns as f64 / secs;
        cell.resources.server_cpu_us_per_txn = cpu_us;
        cell.resources.server_cpu_util = cpu_us * txns as f64 / 1e6 / secs;
        cell.resources.idle_servers_cpu_util = Some(0.01);
        cell.per_second_tps = vec![cell.tps];
        cell.flags = flags;
        Slice {
            position,
            at_s: position as f64,
            cell,
        }
    }

    #[test]
    fn slices_combine_by_their_transactions_and_seconds() {
        let slices = [
            slice(0, 1000, 1.0, 10.0, vec![]),
            slice(3, 3000, 1.0, 20.0, vec![Flag::ClientBound]),
        ];
        let c = combine(
            slices[0].cell.key.clone(),
            &slices,
            &Latencies::default(),
            &Limits::default(),
        );
        assert_eq!(c.transactions, 4000);
        assert!((c.tps - 2000.0).abs() < 1e-9, "{}", c.tps);
        // 1000 × 10 µs + 3000 × 20 µs over 4000 transactions.
        assert!((c.resources.server_cpu_us_per_txn - 17.5).abs() < 1e-9);
        // 0.01 s and 0.06 s of CPU over 2 s.
        assert!((c.resources.server_cpu_util - 0.035).abs() < 1e-9);
        assert_eq!(c.flags, vec![Flag::ClientBound]);
        assert_eq!(c.slices.len(), 2);
        assert_eq!(c.slices[1].position, 3);
        assert_eq!(c.resources.idle_servers_cpu_util, Some(0.01));
    }
}
