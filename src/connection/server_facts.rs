//! What a running server says about itself over an admin connection, whichever protocol it
//! speaks: its cumulative status counters, and its performance_schema where it has one.

use super::postgres::{PgError, PgSession};
use super::AdminConn;
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

impl AdminConn {
    /// The server's numeric counters by name. MySQL and MariaDB: `SHOW GLOBAL STATUS`.
    /// PostgreSQL: every numeric column of pg_stat_database (summed over the databases),
    /// pg_stat_wal, pg_stat_bgwriter and, from 17, pg_stat_checkpointer, named `view.column`.
    pub fn status_counters(&mut self) -> Result<BTreeMap<String, f64>> {
        match self {
            AdminConn::MySql(c) => mysql_status(c),
            AdminConn::Pg(c) => pg_status(c),
        }
    }

    /// `read` run on the MySQL protocol's connection, to read the server's
    /// performance_schema; `None` where the server has no performance_schema (PostgreSQL).
    pub fn performance_schema<T>(
        &mut self,
        read: impl FnOnce(&mut mysql::Conn) -> Result<T>,
    ) -> Result<Option<T>> {
        match self {
            AdminConn::MySql(c) => read(c).map(Some),
            AdminConn::Pg(_) => Ok(None),
        }
    }
}

fn mysql_status(conn: &mut mysql::Conn) -> Result<BTreeMap<String, f64>> {
    let rows: Vec<(String, String)> = conn
        .query("SHOW GLOBAL STATUS")
        .context("reading SHOW GLOBAL STATUS")?;
    Ok(rows
        .into_iter()
        .filter_map(|(k, v)| v.parse::<f64>().ok().map(|n| (k, n)))
        .collect())
}

fn pg_status(conn: &mut PgSession) -> Result<BTreeMap<String, f64>> {
    let mut out = BTreeMap::new();
    for view in PG_VIEWS {
        let sql = format!(
            "SELECT row_to_json(s)::text FROM pg_catalog.{view} s \
             WHERE to_regclass('pg_catalog.{view}') IS NOT NULL"
        );
        let rows = match conn.query(&sql) {
            Ok(r) => r,
            // 42P01: the view does not exist in this version.
            Err(PgError::Server { code, .. }) if code == "42P01" => continue,
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
    Ok(out)
}
