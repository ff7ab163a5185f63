//! Databases as a whole, on either protocol: creating one unless it exists, and measuring
//! the bytes its tables take.

use super::{AdminConn, Endpoint, Engine};
use anyhow::Result;
use mysql::prelude::Queryable;

impl Endpoint {
    /// Create database `db` unless it exists (PostgreSQL has no CREATE DATABASE IF NOT
    /// EXISTS: pg_database is asked first, from the `postgres` database).
    pub fn create_database_if_missing(&self, db: &str) -> Result<()> {
        match self.engine {
            Engine::MySql => self
                .connect_without_db()?
                .query_drop(format!("CREATE DATABASE IF NOT EXISTS `{db}`"))
                .map_err(Into::into),
            Engine::Postgres => {
                let mut c = self.pg().with_database("postgres").connect()?;
                let literal = db.replace('\'', "''");
                let found = c.query(&format!(
                    "SELECT 1 FROM pg_database WHERE datname = '{literal}'"
                ))?;
                if found.is_empty() {
                    c.run(&format!("CREATE DATABASE \"{}\"", db.replace('"', "\"\"")))?;
                }
                Ok(())
            }
        }
    }
}

impl AdminConn {
    /// The bytes the tables of `database`, the one this connection is in, take: data and
    /// indexes (PostgreSQL: heap, indexes and TOAST of the `public` schema's tables). A
    /// MySQL-family server's statistics are refreshed first (InnoDB's are estimates until
    /// ANALYZE).
    pub fn tables_bytes(&mut self, database: &str) -> Result<u64> {
        match self {
            AdminConn::MySql(c) => mysql_tables_bytes(c, database),
            AdminConn::Pg(c) => {
                let rows = c.query(
                    "SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c \
                     JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE n.nspname = 'public' AND c.relkind = 'r'",
                )?;
                Ok(rows
                    .first()
                    .and_then(|r| r[0].as_deref())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0))
            }
        }
    }
}

fn mysql_tables_bytes(conn: &mut mysql::Conn, database: &str) -> Result<u64> {
    let tables: Vec<String> = conn.exec(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
        (database,),
    )?;
    for t in &tables {
        conn.query_drop(format!("ANALYZE TABLE `{database}`.`{t}`"))?;
    }
    let bytes: Option<Option<u64>> = conn.exec_first(
        "SELECT CAST(SUM(DATA_LENGTH + INDEX_LENGTH) AS UNSIGNED) FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = ?",
        (database,),
    )?;
    Ok(bytes.flatten().unwrap_or(0))
}
