//! Server counter snapshots and their deltas: what the server did per transaction.
//! MySQL and MariaDB report their global status counters; PostgreSQL its statistics views'
//! numeric columns, named `view.column` ([`AdminConn::status_counters`]).

use crate::connection::AdminConn;
use anyhow::Result;
use std::collections::BTreeMap;

/// Numeric global status counters by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatusSnapshot(pub BTreeMap<String, f64>);

impl StatusSnapshot {
    pub fn read(conn: &mut AdminConn) -> Result<Self> {
        Ok(StatusSnapshot(conn.status_counters()?))
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
    // PostgreSQL.
    "pg_stat_database.xact_commit",
    "pg_stat_database.xact_rollback",
    "pg_stat_database.blks_read",
    "pg_stat_database.blks_hit",
    "pg_stat_database.tup_returned",
    "pg_stat_database.tup_fetched",
    "pg_stat_database.tup_inserted",
    "pg_stat_database.tup_updated",
    "pg_stat_database.tup_deleted",
    "pg_stat_database.temp_bytes",
    "pg_stat_database.blk_read_time",
    "pg_stat_wal.wal_records",
    "pg_stat_wal.wal_fpi",
    "pg_stat_wal.wal_bytes",
    "pg_stat_wal.wal_write",
    "pg_stat_wal.wal_sync",
    "pg_stat_bgwriter.buffers_clean",
    "pg_stat_bgwriter.buffers_alloc",
    "pg_stat_bgwriter.buffers_backend",
    "pg_stat_bgwriter.buffers_checkpoint",
    "pg_stat_checkpointer.buffers_written",
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
