//! `SHOW GLOBAL STATUS` snapshots and their deltas: what the server did per transaction.

use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use std::collections::BTreeMap;

/// Numeric global status counters by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatusSnapshot(pub BTreeMap<String, f64>);

impl StatusSnapshot {
    pub fn read(conn: &mut mysql::Conn) -> Result<Self> {
        let rows: Vec<(String, String)> = conn
            .query("SHOW GLOBAL STATUS")
            .context("reading SHOW GLOBAL STATUS")?;
        Ok(StatusSnapshot(
            rows.into_iter()
                .filter_map(|(k, v)| v.parse::<f64>().ok().map(|n| (k, n)))
                .collect(),
        ))
    }

    pub fn get(&self, name: &str) -> f64 {
        self.0.get(name).copied().unwrap_or(0.0)
    }

    /// `self - earlier` for every counter present in both.
    pub fn delta(&self, earlier: &StatusSnapshot) -> BTreeMap<String, f64> {
        self.0
            .iter()
            .filter_map(|(k, v)| earlier.0.get(k).map(|e| (k.clone(), v - e)))
            .collect()
    }
}

/// The counters reported per transaction: the statement mix, row operations, InnoDB work and
/// network bytes. Gauges (Threads_running, …) would make no sense as deltas.
pub const PER_TRANSACTION: &[&str] = &[
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Com_begin",
    "Com_commit",
    "Com_rollback",
    "Com_stmt_execute",
    "Questions",
    "Handler_read_key",
    "Handler_read_next",
    "Handler_read_rnd_next",
    "Handler_write",
    "Handler_update",
    "Handler_delete",
    "Innodb_rows_read",
    "Innodb_rows_inserted",
    "Innodb_rows_updated",
    "Innodb_rows_deleted",
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads",
    "Innodb_data_read",
    "Innodb_data_written",
    "Innodb_os_log_written",
    "Created_tmp_tables",
    "Sort_rows",
    "Bytes_received",
    "Bytes_sent",
];

/// Selected deltas divided by the number of transactions.
pub fn per_transaction(delta: &BTreeMap<String, f64>, transactions: u64) -> BTreeMap<String, f64> {
    let n = transactions.max(1) as f64;
    PER_TRANSACTION
        .iter()
        .filter_map(|k| delta.get(*k).map(|v| (k.to_string(), v / n)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_and_normalisation() {
        let a = StatusSnapshot(
            [
                ("Com_select".to_string(), 10.0),
                ("Only_before".into(), 1.0),
            ]
            .into_iter()
            .collect(),
        );
        let b = StatusSnapshot([("Com_select".to_string(), 110.0)].into_iter().collect());
        let d = b.delta(&a);
        assert_eq!(d.len(), 1);
        assert_eq!(per_transaction(&d, 50)["Com_select"], 2.0);
    }
}
