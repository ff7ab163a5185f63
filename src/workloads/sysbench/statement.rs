//! One SQL statement of a workload, executed the way `--db-ps-mode` asks: as a server-side
//! prepared statement (binary protocol), or as text with the values substituted (as
//! sysbench's emulation does: integers in decimal, strings quoted without escaping).

use crate::connection::wire::{Outcome, Value};
use crate::connection::{Prepared, Session, SessionError};
use crate::workloads::errors::classify_error;
use crate::workloads::{EventError, QueryCounters};
use anyhow::{Context, Result};
use std::fmt::Write;

/// A value bound to a `?`.
#[derive(Clone, Copy, Debug)]
pub enum Param<'a> {
    Int(i64),
    /// Digits, dashes and letters only: substituted unescaped in text mode.
    Str(&'a [u8]),
}

#[derive(Debug)]
enum Exec {
    Prepared(Prepared),
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
    pub fn new(conn: &mut Session, text: &str, prepared: bool) -> Result<Statement> {
        let text_form = || Exec::Text {
            parts: text.split('?').map(str::to_string).collect(),
        };
        let exec = if prepared {
            match conn.prepare(text) {
                Ok(stmt) => Exec::Prepared(stmt),
                Err(e) if e.cannot_be_prepared() => text_form(),
                Err(e) => {
                    return Err(e).with_context(|| format!("preparing `{text}`"));
                }
            }
        } else {
            text_form()
        };
        let reads = match &exec {
            Exec::Prepared(s) => s.columns() > 0,
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

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_prepared(&self) -> bool {
        matches!(self.exec, Exec::Prepared(_))
    }

    /// Run with `params`, read every row, and count the statement as read, write or other.
    /// `sql` is a scratch buffer for the text form, reused across calls.
    pub fn run(
        &mut self,
        conn: &mut Session,
        params: &[Param<'_>],
        sql: &mut String,
        counters: &mut QueryCounters,
    ) -> Result<(), EventError> {
        let outcome = match &mut self.exec {
            Exec::Prepared(stmt) => execute(conn, stmt, params),
            Exec::Text { parts } => {
                substitute(parts, params, sql);
                conn.query(sql.as_str())
            }
        }
        .map_err(|e| classify_error(e, &self.text))?;
        if self.reads {
            counters.reads += 1;
        } else if outcome.affected_rows > 0 {
            counters.writes += 1;
        } else {
            counters.other += 1;
        }
        Ok(())
    }
}

/// Bind without allocating: sysbench's statements take at most 16 parameters.
fn execute(
    conn: &mut Session,
    stmt: &mut Prepared,
    params: &[Param<'_>],
) -> Result<Outcome, SessionError> {
    const MOST: usize = 16;
    if params.len() > MOST {
        let values: Vec<Value<'_>> = params.iter().map(to_value).collect();
        return conn.execute(stmt, &values);
    }
    let mut values = [Value::Null; MOST];
    for (v, p) in values.iter_mut().zip(params) {
        *v = to_value(p);
    }
    conn.execute(stmt, &values[..params.len()])
}

fn to_value<'a>(p: &Param<'a>) -> Value<'a> {
    match *p {
        Param::Int(i) => Value::Int(i),
        Param::Str(s) => Value::Bytes(s),
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
