//! A connection for administrative statements (DDL, probes, counts), over the server's
//! protocol: the `mysql` crate's for MySQL and MariaDB, psbench's PostgreSQL client for
//! PostgreSQL. Measured statements go through [`super::Session`] instead.

use super::postgres::PgSession;
pub use super::postgres::TextRows;
use super::{Dialect, Endpoint, Engine};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;

pub enum AdminConn {
    MySql(mysql::Conn),
    Pg(PgSession),
}

impl AdminConn {
    pub fn open(endpoint: &Endpoint) -> Result<AdminConn> {
        Ok(match endpoint.engine {
            Engine::MySql => AdminConn::MySql(endpoint.connect()?),
            Engine::Postgres => AdminConn::Pg(endpoint.pg().connect()?),
        })
    }

    /// The SQL this connection's server takes.
    pub fn dialect(&self) -> Dialect {
        match self {
            AdminConn::MySql(_) => Dialect::of(Engine::MySql),
            AdminConn::Pg(_) => Dialect::of(Engine::Postgres),
        }
    }

    /// Run one statement for its effect.
    pub fn run(&mut self, sql: &str) -> Result<()> {
        match self {
            AdminConn::MySql(c) => c.query_drop(sql).map_err(anyhow::Error::new),
            AdminConn::Pg(c) => c.run(sql).map_err(anyhow::Error::new),
        }
        .with_context(|| format!("running `{}`", shown(sql)))
    }

    /// The rows of one statement, every value in text form.
    pub fn rows(&mut self, sql: &str) -> Result<TextRows> {
        let rows = match self {
            AdminConn::MySql(c) => c
                .query::<mysql::Row, _>(sql)
                .map(|rows| rows.into_iter().map(text_row).collect())
                .map_err(anyhow::Error::new),
            AdminConn::Pg(c) => c.query(sql).map_err(anyhow::Error::new),
        };
        rows.with_context(|| format!("running `{}`", shown(sql)))
    }
}

/// A statement as an error names it: a bulk INSERT can be half a megabyte.
fn shown(sql: &str) -> String {
    const MOST: usize = 200;
    match sql.char_indices().nth(MOST) {
        Some((i, _)) => format!("{}…", &sql[..i]),
        None => sql.to_string(),
    }
}

fn text_row(row: mysql::Row) -> Vec<Option<String>> {
    row.unwrap()
        .into_iter()
        .map(|v| match v {
            mysql::Value::NULL => None,
            mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
            other => Some(other.as_sql(true).trim_matches('\'').to_string()),
        })
        .collect()
}
