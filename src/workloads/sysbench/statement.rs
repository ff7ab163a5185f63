//! One SQL statement of a workload, executed the way `--db-ps-mode` asks: as a server-side
//! prepared statement (binary protocol), or as text with the values substituted (as
//! sysbench's emulation does: integers in decimal, strings quoted without escaping).

use crate::workloads::errors::classify_mysql_error;
use crate::workloads::{EventError, QueryCounters};
use anyhow::{Context, Result};
use mysql::prelude::{Protocol, Queryable};
use mysql::{Params, QueryResult, Value};
use std::fmt::Write;

/// MariaDB/MySQL's answer to a statement that cannot be prepared.
const ER_UNSUPPORTED_PS: u16 = 1295;

/// A value bound to a `?`.
#[derive(Clone, Copy, Debug)]
pub enum Param<'a> {
    Int(i64),
    /// Digits, dashes and letters only: substituted unescaped in text mode.
    Str(&'a [u8]),
}

#[derive(Debug)]
enum Exec {
    Prepared(mysql::Statement),
    /// The text split at each `?`: parts.len() = placeholders + 1.
    Text {
        parts: Vec<String>,
    },
}

#[derive(Debug)]
pub struct Statement {
    text: String,
    exec: Exec,
    /// Returns a result set, so it counts as a read whatever the rows (docs/sysbench-compat.md#read-write-other).
    reads: bool,
}

impl Statement {
    /// Prepare `text` on `conn` when `prepared`; else keep it for the text protocol. As
    /// sysbench does, a statement the server refuses to prepare runs as text instead.
    pub fn new(conn: &mut mysql::Conn, text: &str, prepared: bool) -> Result<Statement> {
        let text_form = || Exec::Text {
            parts: text.split('?').map(str::to_string).collect(),
        };
        let exec = if prepared {
            match conn.prep(text) {
                Ok(stmt) => Exec::Prepared(stmt),
                Err(mysql::Error::MySqlError(e)) if e.code == ER_UNSUPPORTED_PS => text_form(),
                Err(e) => {
                    return Err(e).with_context(|| format!("preparing `{text}`"));
                }
            }
        } else {
            text_form()
        };
        let reads = match &exec {
            Exec::Prepared(s) => s.num_columns() > 0,
            Exec::Text { .. } => {
                let head = text.trim_start().get(..6).unwrap_or("");
                head.eq_ignore_ascii_case("select")
            }
        };
        Ok(Statement {
            text: text.to_string(),
            exec,
            reads,
        })
    }

    /// Fail when `conn` has already closed this statement. The mysql crate keeps at most
    /// `stmt_cache_size` (default 32) prepared statements per connection and closes the
    /// least recently prepared one beyond that; sysbench needs 2 + 9 per table. Called on
    /// the first statement after preparing `total`, so a run never starts with
    /// statements the server has forgotten.
    pub fn ensure_still_open(&self, conn: &mut mysql::Conn, total: usize) -> Result<()> {
        const CRATE_DEFAULT_CACHE: usize = 32;
        let Exec::Prepared(original) = &self.exec else {
            return Ok(());
        };
        if total <= CRATE_DEFAULT_CACHE {
            return Ok(());
        }
        let again = conn.prep(&self.text)?;
        if again.id() == original.id() {
            return Ok(()); // still in a cache big enough for all of them
        }
        let twice = conn.prep(&self.text)?;
        if twice.id() == again.id() {
            anyhow::bail!(
                "the workload prepares {total} statements per connection, more than this \
                 connection's statement cache keeps open (the mysql crate closes the oldest); \
                 open connections with stmt_cache_size(0) or use fewer --tables"
            );
        }
        // The cache is off (two prepares, two statements): nothing was closed.
        conn.close(again)?;
        conn.close(twice)?;
        Ok(())
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_prepared(&self) -> bool {
        matches!(self.exec, Exec::Prepared(_))
    }

    /// Run with `params`, read every row, and count the statement as read, write or other.
    /// `sql` is a scratch buffer for the text form, reused across calls.
    pub fn run(
        &self,
        conn: &mut mysql::Conn,
        params: &[Param<'_>],
        sql: &mut String,
        counters: &mut QueryCounters,
    ) -> Result<(), EventError> {
        let affected = match &self.exec {
            Exec::Prepared(stmt) => {
                let values: Vec<Value> = params.iter().map(to_value).collect();
                let params = if values.is_empty() {
                    Params::Empty
                } else {
                    Params::Positional(values)
                };
                conn.exec_iter(stmt, params).and_then(drain)
            }
            Exec::Text { parts } => {
                substitute(parts, params, sql);
                conn.query_iter(sql.as_str()).and_then(drain)
            }
        }
        .map_err(|e| classify_mysql_error(e, &self.text))?;
        if self.reads {
            counters.reads += 1;
        } else if affected > 0 {
            counters.writes += 1;
        } else {
            counters.other += 1;
        }
        Ok(())
    }
}

/// Read every row (sysbench buffers whole result sets) and return the affected rows.
/// Rows are read explicitly: dropping a result would swallow a read error.
fn drain<P: Protocol>(mut result: QueryResult<'_, '_, '_, P>) -> mysql::Result<u64> {
    let affected = result.affected_rows();
    for row in result.by_ref() {
        row?;
    }
    Ok(affected)
}

fn to_value(p: &Param<'_>) -> Value {
    match *p {
        Param::Int(i) => Value::Int(i),
        Param::Str(s) => Value::Bytes(s.to_vec()),
    }
}

/// The statement text with each `?` replaced by its value.
pub fn substitute(parts: &[String], params: &[Param<'_>], sql: &mut String) {
    debug_assert_eq!(parts.len(), params.len() + 1, "placeholder count");
    sql.clear();
    for (part, param) in parts.iter().zip(params) {
        sql.push_str(part);
        match *param {
            Param::Int(i) => {
                let _ = write!(sql, "{i}");
            }
            Param::Str(s) => {
                sql.push('\'');
                // The generated strings are ASCII by construction.
                sql.push_str(std::str::from_utf8(s).unwrap_or_default());
                sql.push('\'');
            }
        }
    }
    if let Some(last) = parts.last() {
        sql.push_str(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutes_ints_and_quoted_strings() {
        let parts: Vec<String> = "UPDATE sbtest1 SET c=? WHERE id=?"
            .split('?')
            .map(str::to_string)
            .collect();
        let mut sql = String::new();
        substitute(&parts, &[Param::Str(b"12-34"), Param::Int(-7)], &mut sql);
        assert_eq!(sql, "UPDATE sbtest1 SET c='12-34' WHERE id=-7");
        let parts = vec!["BEGIN".to_string()];
        substitute(&parts, &[], &mut sql);
        assert_eq!(sql, "BEGIN");
    }
}
