//! One connection of psbench's own clients, whichever protocol the server speaks: what the
//! workloads and the driver hold. Statements carry `?` placeholders as sysbench writes them;
//! on PostgreSQL they are numbered `$1`, `$2`… when prepared, as sysbench's pgsql driver does.

use super::postgres::{PgError, PgOutcome, PgPrepared, PgSession};
use super::wire::{self, Outcome, Value, WireError};
use super::{Dialect, Engine, Rows};

/// A connection to a MySQL-family or a PostgreSQL server.
pub enum Session {
    MySql(wire::Session),
    Pg(PgSession),
}

/// A statement prepared on a [`Session`].
#[derive(Clone, Debug)]
pub enum Prepared {
    MySql(wire::Prepared),
    Pg(PgPrepared),
}

impl Prepared {
    /// Columns of its result set: 0 when it returns none.
    pub fn columns(&self) -> usize {
        match self {
            Prepared::MySql(p) => p.columns(),
            Prepared::Pg(p) => p.columns(),
        }
    }
    pub fn params(&self) -> usize {
        match self {
            Prepared::MySql(p) => p.params(),
            Prepared::Pg(p) => p.params(),
        }
    }
    /// The server's id of the statement (PostgreSQL: its number on the session).
    pub fn id(&self) -> u32 {
        match self {
            Prepared::MySql(p) => p.id(),
            Prepared::Pg(p) => p.id(),
        }
    }
}

/// How a statement failed, in its protocol's terms.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    MySql(#[from] WireError),
    #[error(transparent)]
    Pg(#[from] PgError),
}

impl SessionError {
    /// A MySQL-family server's error code.
    pub fn mysql_code(&self) -> Option<u16> {
        match self {
            SessionError::MySql(e) => e.code(),
            SessionError::Pg(_) => None,
        }
    }
}

impl From<PgOutcome> for Outcome {
    fn from(o: PgOutcome) -> Outcome {
        Outcome {
            result_set: o.result_set,
            rows: o.rows,
            affected_rows: o.affected_rows,
            last_insert_id: 0,
        }
    }
}

impl Session {
    /// The server's id of this connection: MySQL's processlist id, PostgreSQL's backend pid.
    pub fn connection_id(&self) -> u32 {
        match self {
            Session::MySql(s) => s.connection_id(),
            Session::Pg(s) => s.backend_pid() as u32,
        }
    }

    /// The SQL this connection's server takes.
    pub fn dialect(&self) -> Dialect {
        match self {
            Session::MySql(_) => Dialect::of(Engine::MySql),
            Session::Pg(_) => Dialect::of(Engine::Postgres),
        }
    }

    /// After a retryable error, before the transaction runs again. PostgreSQL keeps the
    /// failed transaction open and refuses everything but its end, so it is rolled back (a
    /// failed ROLLBACK shows up as a lost connection on the next try); a MySQL-family server
    /// needs nothing, and is sent nothing.
    pub fn end_failed_transaction(&mut self) {
        if let Session::Pg(s) = self {
            let _ = s.execute_text("ROLLBACK");
        }
    }

    /// Prepare `sql`, written with `?` placeholders.
    pub fn prepare(&mut self, sql: &str) -> Result<Prepared, SessionError> {
        Ok(match self {
            Session::MySql(s) => Prepared::MySql(s.prepare(sql)?),
            Session::Pg(s) => Prepared::Pg(s.prepare(&numbered(sql))?),
        })
    }

    pub fn execute(
        &mut self,
        stmt: &mut Prepared,
        params: &[Value<'_>],
    ) -> Result<Outcome, SessionError> {
        match (self, stmt) {
            (Session::MySql(s), Prepared::MySql(p)) => Ok(s.execute(p, params)?),
            (Session::Pg(s), Prepared::Pg(p)) => {
                // Bind without allocating: sysbench's statements take at most 16 values.
                const MOST: usize = 16;
                if params.len() > MOST || params.iter().any(|v| matches!(v, Value::DateTime { .. }))
                {
                    let owned: Vec<Option<Vec<u8>>> = params.iter().map(text_owned).collect();
                    let refs: Vec<Option<&[u8]>> = owned.iter().map(|o| o.as_deref()).collect();
                    return Ok(s.execute(p, &refs)?.into());
                }
                let mut ints = [[0u8; 20]; MOST];
                let mut lens = [0usize; MOST];
                for (i, v) in params.iter().enumerate() {
                    if let Value::Int(n) = *v {
                        lens[i] = write_int(&mut ints[i], n);
                    }
                }
                let mut texts: [Option<&[u8]>; MOST] = [None; MOST];
                for (i, v) in params.iter().enumerate() {
                    texts[i] = match *v {
                        Value::Int(_) => Some(&ints[i][..lens[i]]),
                        Value::Bytes(b) => Some(b),
                        Value::Null | Value::DateTime { .. } => None,
                    };
                }
                Ok(s.execute(p, &texts[..params.len()])?.into())
            }
            _ => Err(WireError::Protocol(
                "a statement prepared on another kind of connection".into(),
            )
            .into()),
        }
    }

    /// Run `sql` with the text protocol, counting what it returned.
    pub fn query(&mut self, sql: &str) -> Result<Outcome, SessionError> {
        match self {
            Session::MySql(s) => Ok(s.query(sql)?),
            Session::Pg(s) => Ok(s.execute_text(sql)?.into()),
        }
    }
}

/// Statements whose rows are kept as text (a script's `\gset` and `\aset`); `None` when
/// the statement returned no result set.
impl Session {
    pub fn query_rows(&mut self, sql: &str) -> Result<Option<Rows>, SessionError> {
        match self {
            Session::MySql(s) => Ok(s.query_rows(sql)?),
            Session::Pg(s) => Ok(s.query_rows(sql)?),
        }
    }

    pub fn execute_rows(
        &mut self,
        stmt: &mut Prepared,
        params: &[Value<'_>],
    ) -> Result<Option<Rows>, SessionError> {
        match (self, stmt) {
            (Session::MySql(s), Prepared::MySql(p)) => Ok(s.execute_rows(p, params)?),
            (Session::Pg(s), Prepared::Pg(p)) => {
                let owned: Vec<Option<Vec<u8>>> = params.iter().map(text_owned).collect();
                let refs: Vec<Option<&[u8]>> = owned.iter().map(|o| o.as_deref()).collect();
                Ok(s.execute_rows(p, &refs)?)
            }
            _ => Err(WireError::Protocol(
                "a statement prepared on another kind of connection".into(),
            )
            .into()),
        }
    }

    /// PostgreSQL's extended query protocol with the unnamed statement: `sql` (with `?`
    /// placeholders) parsed, bound and run in one exchange, as pgbench's `-M extended` does.
    /// A MySQL-family server has no such protocol: a protocol error.
    pub fn execute_unnamed(
        &mut self,
        sql: &str,
        params: &[Value<'_>],
        want_rows: bool,
    ) -> Result<(Outcome, Option<Rows>), SessionError> {
        match self {
            Session::Pg(s) => {
                let owned: Vec<Option<Vec<u8>>> = params.iter().map(text_owned).collect();
                let refs: Vec<Option<&[u8]>> = owned.iter().map(|o| o.as_deref()).collect();
                let (o, rows) = s.execute_unnamed(&numbered(sql), &refs, want_rows)?;
                Ok((o.into(), rows))
            }
            Session::MySql(_) => Err(WireError::Protocol(
                "the extended query protocol is PostgreSQL's".into(),
            )
            .into()),
        }
    }
}

impl Session {
    /// PostgreSQL: the rows of `sql` in text form, over the simple query protocol. psbench's
    /// MySQL client only counts rows, so there this is a protocol error.
    pub fn text_rows(&mut self, sql: &str) -> Result<super::TextRows, SessionError> {
        match self {
            Session::Pg(s) => Ok(s.query(sql)?),
            Session::MySql(_) => Err(WireError::Protocol(
                "rows in text form are read over PostgreSQL's protocol only".into(),
            )
            .into()),
        }
    }
}

/// `?` placeholders as `$1`, `$2`… (outside quoted strings).
pub fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let (mut n, mut quoted) = (0, false);
    for ch in sql.chars() {
        match ch {
            '\'' => {
                quoted = !quoted;
                out.push(ch);
            }
            '?' if !quoted => {
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
            }
            _ => out.push(ch),
        }
    }
    out
}

/// `n` in decimal into `buf`; its length.
fn write_int(buf: &mut [u8; 20], n: i64) -> usize {
    use std::io::Write;
    let mut cur = std::io::Cursor::new(&mut buf[..]);
    let _ = write!(cur, "{n}");
    cur.position() as usize
}

fn text_owned(v: &Value<'_>) -> Option<Vec<u8>> {
    match *v {
        Value::Null => None,
        Value::Int(n) => Some(n.to_string().into_bytes()),
        Value::Bytes(b) => Some(b.to_vec()),
        Value::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
        } => Some(
            format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}").into_bytes(),
        ),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_are_numbered_outside_strings() {
        assert_eq!(
            super::numbered("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?"),
            "SELECT c FROM sbtest1 WHERE id BETWEEN $1 AND $2"
        );
        assert_eq!(super::numbered("SELECT '?', ?"), "SELECT '?', $1");
    }

    #[test]
    fn integers_are_written_in_decimal() {
        let mut b = [0u8; 20];
        let n = super::write_int(&mut b, -9_223_372_036_854_775_808);
        assert_eq!(&b[..n], b"-9223372036854775808");
    }
}
