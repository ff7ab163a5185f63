//! The interpreter's statements on a psbench connection: as text, as server-side prepared
//! statements, or (PostgreSQL) through the extended protocol's unnamed statement. Each
//! statement is counted as sysbench counts them (read, write, other).

use super::QueryMode;
use crate::connection::wire::Value as Bound;
use crate::connection::{Prepared, Session, SessionError};
use crate::workloads::errors::classify_error;
use crate::workloads::script::{Rows, Script, Sql, Value};
use crate::workloads::{EventError, QueryCounters};

/// Statements prepared on one connection: per script, per command (None for a meta
/// command, and for an SQL command without variables the server will not prepare, which
/// goes as text).
pub type PreparedScripts = Vec<Vec<Option<Prepared>>>;

/// MySQL's "This command is not supported in the prepared statement protocol yet": MySQL
/// 8.0 says it of BEGIN, which MariaDB and PostgreSQL prepare.
const NOT_PREPARABLE: u16 = 1295;

/// Prepare every SQL command of `scripts` on `conn`.
pub fn prepare_all(
    conn: &mut Session,
    scripts: &[(Script, u32)],
) -> anyhow::Result<PreparedScripts> {
    let mut out = Vec::with_capacity(scripts.len());
    for (script, _) in scripts {
        let mut commands: Vec<Option<Prepared>> = vec![None; script.command_count()];
        for (i, cmd) in script.sql_commands() {
            let stmt = match conn.prepare(&cmd.prepared_sql) {
                Err(e) if e.mysql_code() == Some(NOT_PREPARABLE) && cmd.params.is_empty() => {
                    continue
                }
                other => other,
            };
            let stmt = stmt.map_err(|e| {
                anyhow::Error::new(e).context(format!(
                    "{}:{}: preparing `{}`",
                    script.name,
                    cmd.line,
                    cmd.text.trim()
                ))
            })?;
            commands[i] = Some(stmt);
        }
        out.push(commands);
    }
    Ok(out)
}

pub struct SessionSql<'a> {
    pub conn: &'a mut Session,
    pub prepared: &'a mut PreparedScripts,
    pub scripts: &'a [(Script, u32)],
    pub mode: QueryMode,
    pub counters: &'a mut QueryCounters,
}

impl SessionSql<'_> {
    fn count(&mut self, result_set: bool, affected: u64) {
        if result_set {
            self.counters.reads += 1;
        } else if affected > 0 {
            self.counters.writes += 1;
        } else {
            self.counters.other += 1;
        }
    }

    /// A statement's failure: a lost connection or a retryable conflict as the driver
    /// handles them; anything else fails this transaction only.
    fn failure(e: SessionError, text: &str) -> EventError {
        match classify_error(e, text) {
            EventError::Fatal(e) => EventError::Failed(format!("{e:#}")),
            other => other,
        }
    }
}

/// The values as the server is sent them: integers as integers, the rest as text.
fn texts(params: &[Value]) -> Vec<Option<String>> {
    params
        .iter()
        .map(|v| match v {
            Value::Int(_) => None,
            other => other.to_sql_text(),
        })
        .collect()
}

fn bound<'t>(params: &[Value], texts: &'t [Option<String>]) -> Vec<Bound<'t>> {
    params
        .iter()
        .zip(texts)
        .map(|(v, t)| match (v, t) {
            (Value::Int(n), _) => Bound::Int(*n),
            (_, Some(t)) => Bound::Bytes(t.as_bytes()),
            (_, None) => Bound::Null,
        })
        .collect()
}

fn rows_of(r: crate::connection::Rows) -> Rows {
    Rows {
        columns: r.columns,
        rows: r.rows,
    }
}

impl Sql for SessionSql<'_> {
    fn run_text(&mut self, sql: &str, want_rows: bool) -> Result<Option<Rows>, EventError> {
        if want_rows {
            let rows = self
                .conn
                .query_rows(sql)
                .map_err(|e| Self::failure(e, sql))?;
            self.count(rows.is_some(), 0);
            return Ok(rows.map(rows_of));
        }
        let o = self.conn.query(sql).map_err(|e| Self::failure(e, sql))?;
        self.count(o.result_set, o.affected_rows);
        Ok(None)
    }

    fn run_prepared(
        &mut self,
        script: usize,
        command: usize,
        params: &[Value],
        want_rows: bool,
    ) -> Result<Option<Rows>, EventError> {
        let owned = texts(params);
        let values = bound(params, &owned);
        let cmd = self.scripts[script]
            .0
            .sql_commands()
            .find(|(i, _)| *i == command)
            .map(|(_, c)| c)
            .ok_or_else(|| EventError::Fatal(anyhow::anyhow!("no SQL command {command}")))?;
        if self.mode == QueryMode::Extended {
            let (o, rows) = self
                .conn
                .execute_unnamed(&cmd.prepared_sql, &values, want_rows)
                .map_err(|e| Self::failure(e, &cmd.text))?;
            self.count(o.result_set, o.affected_rows);
            return Ok(rows.map(rows_of));
        }
        let Some(stmt) = self.prepared[script][command].as_mut() else {
            // The server would not prepare it (prepare_all): it has no variables, so its
            // text is the statement.
            let text = cmd.text.clone();
            return self.run_text(&text, want_rows);
        };
        if want_rows {
            let rows = self
                .conn
                .execute_rows(stmt, &values)
                .map_err(|e| Self::failure(e, &cmd.text))?;
            self.count(rows.is_some(), 0);
            return Ok(rows.map(rows_of));
        }
        let o = self
            .conn
            .execute(stmt, &values)
            .map_err(|e| Self::failure(e, &cmd.text))?;
        self.count(o.result_set, o.affected_rows);
        Ok(None)
    }
}
