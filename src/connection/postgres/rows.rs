//! Statements whose rows are kept, in text form (a script's `\gset` and `\aset`): over the
//! simple query protocol, a prepared statement, or the extended protocol's unnamed statement
//! as libpq's PQsendQueryParams sends it (Parse, Bind, Describe, Execute, Sync).

use super::session::{server_error, PgError, PgSession};
use super::statements::{affected, column_names, PgOutcome, PgPrepared};
use crate::connection::Rows;
use fallible_iterator::FallibleIterator;
use postgres_protocol::message::{backend::Message, frontend};

impl PgSession {
    /// `sql` over the simple query protocol: the last result set's rows (`None`: none came).
    pub fn query_rows(&mut self, sql: &str) -> Result<Option<Rows>, PgError> {
        self.in_step()?;
        frontend::query(sql, &mut self.outbox)?;
        self.send()?;
        Ok(self.read_rows(None)?.1)
    }

    /// A prepared statement with `params` in text form, and the rows it returned.
    pub fn execute_rows(
        &mut self,
        stmt: &PgPrepared,
        params: &[Option<&[u8]>],
    ) -> Result<Option<Rows>, PgError> {
        self.in_step()?;
        self.bind_text(stmt.name(), params)?;
        frontend::execute("", 0, &mut self.outbox)?;
        frontend::sync(&mut self.outbox);
        self.send()?;
        let names = (stmt.columns() > 0).then_some(&*stmt.names);
        Ok(self.read_rows(names)?.1)
    }

    /// `sql` (with `$n` placeholders) parsed, bound and run as the unnamed statement, as
    /// pgbench's extended query mode does on every run; its rows kept when `want_rows`.
    pub fn execute_unnamed(
        &mut self,
        sql: &str,
        params: &[Option<&[u8]>],
        want_rows: bool,
    ) -> Result<(PgOutcome, Option<Rows>), PgError> {
        self.in_step()?;
        frontend::parse("", sql, std::iter::empty(), &mut self.outbox)?;
        self.bind_text("", params)?;
        frontend::describe(b'P', "", &mut self.outbox)?;
        frontend::execute("", 0, &mut self.outbox)?;
        frontend::sync(&mut self.outbox);
        self.send()?;
        let (outcome, rows) = self.read_rows(None)?;
        Ok((outcome, rows.filter(|_| want_rows)))
    }

    /// Read a response to its ReadyForQuery, keeping the last result set (`names`: the
    /// columns of a statement whose rows come without a RowDescription).
    fn read_rows(
        &mut self,
        names: Option<&[String]>,
    ) -> Result<(PgOutcome, Option<Rows>), PgError> {
        self.broken = true;
        let mut out = PgOutcome {
            result_set: names.is_some(),
            ..PgOutcome::default()
        };
        let mut last = names.map(|n| Rows {
            columns: n.to_vec(),
            rows: Vec::new(),
        });
        let mut failure = None;
        loop {
            match self.receive()? {
                Message::RowDescription(b) => {
                    out.result_set = true;
                    last = Some(Rows {
                        columns: column_names(&b)?,
                        rows: Vec::new(),
                    });
                }
                Message::DataRow(row) => {
                    out.rows += 1;
                    let buf = row.buffer();
                    let mut ranges = row.ranges();
                    let mut values = Vec::new();
                    while let Some(r) = ranges.next()? {
                        values.push(r.map(|r| String::from_utf8_lossy(&buf[r]).into_owned()));
                    }
                    if let Some(rows) = last.as_mut() {
                        rows.rows.push(values);
                    }
                }
                Message::CommandComplete(b) => {
                    let tag = b.tag()?;
                    if tag.starts_with("SELECT") {
                        out.result_set = true;
                    } else {
                        out.affected_rows += affected(tag);
                    }
                }
                Message::ErrorResponse(b) if failure.is_none() => failure = Some(server_error(&b)),
                Message::ParameterStatus(b) => self.note_parameter(&b)?,
                Message::ReadyForQuery(_) => break,
                _ => {}
            }
        }
        self.broken = false;
        match failure {
            Some(e) => Err(e),
            None => Ok((out, last)),
        }
    }
}
