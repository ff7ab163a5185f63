//! Prepared statements over PostgreSQL's extended protocol: Parse and Describe once, then
//! Bind and Execute per run with parameters in text form. Results are read to their end and
//! counted, never decoded: a benchmark needs how many rows came, not what they say.

use super::session::{server_error, PgError, PgSession};
use fallible_iterator::FallibleIterator;
use postgres_protocol::message::{backend::Message, frontend};
use postgres_protocol::IsNull;

/// A statement prepared on one session.
#[derive(Clone, Debug)]
pub struct PgPrepared {
    id: u32,
    name: String,
    params: usize,
    columns: usize,
    /// Its result's column names (a Bind and Execute brings no RowDescription).
    pub(super) names: std::sync::Arc<[String]>,
}

impl PgPrepared {
    /// Columns of its result: 0 when it returns none.
    pub fn columns(&self) -> usize {
        self.columns
    }
    pub fn params(&self) -> usize {
        self.params
    }
    /// Its number on this session (its name on the server is `s<id>`).
    pub fn id(&self) -> u32 {
        self.id
    }
    pub(super) fn name(&self) -> &str {
        &self.name
    }
}

/// What a statement did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PgOutcome {
    /// It returned rows (maybe none): a RowDescription came, or the command was a SELECT.
    pub result_set: bool,
    pub rows: u64,
    /// From the command tag: `INSERT 0 1`, `UPDATE 3`, `DELETE 1`.
    pub affected_rows: u64,
}

impl PgSession {
    /// Parse `sql` (with `$1`, `$2`… placeholders; their types inferred by the server).
    pub fn prepare(&mut self, sql: &str) -> Result<PgPrepared, PgError> {
        self.in_step()?;
        self.statements += 1;
        let name = format!("s{}", self.statements);
        frontend::parse(&name, sql, std::iter::empty(), &mut self.outbox)?;
        frontend::describe(b'S', &name, &mut self.outbox)?;
        frontend::sync(&mut self.outbox);
        self.send()?;
        self.broken = true;
        let (mut params, mut names, mut failure) = (0, Vec::new(), None);
        loop {
            match self.receive()? {
                Message::ParameterDescription(b) => params = b.parameters().count()?,
                Message::RowDescription(b) => names = column_names(&b)?,
                Message::ErrorResponse(b) => failure = Some(server_error(&b)),
                Message::ParameterStatus(b) => self.note_parameter(&b)?,
                Message::ReadyForQuery(_) => break,
                _ => {}
            }
        }
        self.broken = false;
        match failure {
            Some(e) => Err(e),
            None => Ok(PgPrepared {
                id: self.statements,
                name,
                params,
                columns: names.len(),
                names: names.into(),
            }),
        }
    }

    /// Run a prepared statement with `params` in text form (`None` is NULL).
    pub fn execute(
        &mut self,
        stmt: &PgPrepared,
        params: &[Option<&[u8]>],
    ) -> Result<PgOutcome, PgError> {
        self.in_step()?;
        if params.len() != stmt.params {
            return Err(PgError::Protocol(format!(
                "statement takes {} parameters, {} given",
                stmt.params,
                params.len()
            )));
        }
        self.bind_text(&stmt.name, params)?;
        frontend::execute("", 0, &mut self.outbox)?;
        frontend::sync(&mut self.outbox);
        self.send()?;
        self.outcome(stmt.columns > 0)
    }

    /// Run `sql` with the simple query protocol, counting what it returned.
    pub fn execute_text(&mut self, sql: &str) -> Result<PgOutcome, PgError> {
        self.in_step()?;
        frontend::query(sql, &mut self.outbox)?;
        self.send()?;
        self.outcome(false)
    }

    /// Read a response to its ReadyForQuery; the first error is the result.
    fn outcome(&mut self, result_set: bool) -> Result<PgOutcome, PgError> {
        self.broken = true;
        let mut out = PgOutcome {
            result_set,
            ..PgOutcome::default()
        };
        let mut failure = None;
        loop {
            match self.receive()? {
                Message::DataRow(_) => out.rows += 1,
                Message::RowDescription(_) => out.result_set = true,
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
            None => Ok(out),
        }
    }

    /// Bind `params` in text form to the unnamed portal of statement `name`, results in text.
    pub(super) fn bind_text(
        &mut self,
        name: &str,
        params: &[Option<&[u8]>],
    ) -> Result<(), PgError> {
        let bound = frontend::bind(
            "",
            name,
            std::iter::once(0i16),
            params.iter(),
            |v, buf| match v {
                Some(bytes) => {
                    buf.extend_from_slice(bytes);
                    Ok(IsNull::No)
                }
                None => Ok(IsNull::Yes),
            },
            std::iter::once(0i16),
            &mut self.outbox,
        );
        if bound.is_err() {
            self.outbox.clear();
            return Err(PgError::Protocol("could not encode the parameters".into()));
        }
        Ok(())
    }

    pub(super) fn in_step(&self) -> Result<(), PgError> {
        if self.broken {
            return Err(PgError::Protocol(
                "connection out of step after an earlier failure".into(),
            ));
        }
        Ok(())
    }
}

/// A RowDescription's column names.
pub(super) fn column_names(
    b: &postgres_protocol::message::backend::RowDescriptionBody,
) -> Result<Vec<String>, PgError> {
    Ok(b.fields().map(|f| Ok(f.name().to_string())).collect()?)
}

/// Rows a command changed, from its tag's last number (`INSERT 0 3` → 3, `BEGIN` → 0).
pub(super) fn affected(tag: &str) -> u64 {
    let mut words = tag.split_whitespace();
    let verb = words.next().unwrap_or("");
    match verb {
        "INSERT" | "UPDATE" | "DELETE" | "MERGE" | "COPY" => {
            words.last().and_then(|n| n.parse().ok()).unwrap_or(0)
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn affected_rows_come_from_the_tag() {
        assert_eq!(super::affected("INSERT 0 3"), 3);
        assert_eq!(super::affected("UPDATE 1"), 1);
        assert_eq!(super::affected("DELETE 0"), 0);
        assert_eq!(super::affected("BEGIN"), 0);
        assert_eq!(super::affected("CREATE TABLE"), 0);
    }
}
