//! Server counter snapshots and their deltas: what the server did per transaction.
//! MySQL and MariaDB: `SHOW GLOBAL STATUS`. PostgreSQL: every numeric column of
//! pg_stat_database (summed over the databases), pg_stat_wal, pg_stat_bgwriter and, from 17,
//! pg_stat_checkpointer, named `view.column`.

use crate::connection::postgres::PgSession;
use crate::connection::AdminConn;
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use std::collections::BTreeMap;

/// The PostgreSQL statistics views read, each as JSON rows (their columns differ between
/// major versions; a view the server lacks is skipped).
const PG_VIEWS: &[&str] = &[
    "pg_stat_database",
    "pg_stat_wal",
    "pg_stat_bgwriter",
    "pg_stat_checkpointer",
];

/// Numeric global status counters by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatusSnapshot(pub BTreeMap<String, f64>);

impl StatusSnapshot {
    pub fn read(conn: &mut AdminConn) -> Result<Self> {
        match conn {
            AdminConn::MySql(c) => Self::read_mysql(c),
            AdminConn::Pg(c) => Self::read_pg(c),
        }
    }

    fn read_pg(conn: &mut PgSession) -> Result<Self> {
        let mut out = BTreeMap::new();
        for view in PG_VIEWS {
            let sql = format!(
                "SELECT row_to_json(s)::text FROM pg_catalog.{view} s \
                 WHERE to_regclass('pg_catalog.{view}') IS NOT NULL"
            );
            let rows = match conn.query(&sql) {
                Ok(r) => r,
                // 42P01: the view does not exist in this version.
                Err(crate::connection::postgres::PgError::Server { code, .. })
                    if code == "42P01" =>
                {
                    continue
                }
                Err(e) => return Err(e).with_context(|| format!("reading {view}")),
            };
            for row in rows {
                let Some(Some(json)) = row.into_iter().next() else {
                    continue;
                };
                let fields: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(&json).with_context(|| format!("parsing {view}"))?;
                for (k, v) in fields {
                    if let Some(n) = v.as_f64() {
                        *out.entry(format!("{view}.{k}")).or_insert(0.0) += n;
                    }
                }
            }
        }
        Ok(StatusSnapshot(out))
    }

    fn read_mysql(conn: &mut mysql::Conn) -> Result<Self> {
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
