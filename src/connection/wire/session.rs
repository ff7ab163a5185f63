//! One connection's commands: prepare, execute, query, close. Results are read to their
//! end and counted, not decoded: a benchmark needs how many rows came, not what they say.
//! Only `query_rows` and `execute_rows` decode, for a workload that keeps the values.

use super::binary::{put_params, Value};
use super::decode::{self, Column};
use super::error::WireError;
use super::handshake::{open, Established, Login};
use super::packets::{lenenc, Framed};
use crate::connection::Rows;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

const COM_QUIT: u8 = 0x01;
const COM_QUERY: u8 = 0x03;
const COM_STMT_PREPARE: u8 = 0x16;
const COM_STMT_EXECUTE: u8 = 0x17;
const COM_STMT_CLOSE: u8 = 0x19;
/// Status flag: another result set follows this one.
const SERVER_MORE_RESULTS_EXISTS: u16 = 0x0008;

pub struct Session {
    framed: Framed,
    connection_id: u32,
    cache_metadata: bool,
    /// Set when a response was not read to its end: the connection is out of step.
    broken: bool,
    /// Statements prepared on this connection by text: preparing one again costs the
    /// server nothing (a measured window may build fresh workers on the same connection).
    prepared: HashMap<String, Prepared>,
}

/// A server-side prepared statement of this session.
#[derive(Clone, Debug)]
pub struct Prepared {
    id: u32,
    params: usize,
    columns: usize,
    /// The parameter types the server holds for it (empty until the first execution).
    bound: Vec<u8>,
    /// Its result's columns, for a MariaDB server that does not send them again.
    defs: Arc<Vec<Column>>,
}

impl Prepared {
    /// Columns of its result set: 0 when it returns none.
    pub fn columns(&self) -> usize {
        self.columns
    }
    pub fn params(&self) -> usize {
        self.params
    }
    pub fn id(&self) -> u32 {
        self.id
    }
}

/// What a statement did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// It returned a result set (maybe of no rows).
    pub result_set: bool,
    pub rows: u64,
    pub affected_rows: u64,
    pub last_insert_id: u64,
}

impl Session {
    /// Connect and authenticate; each exchange waits at most `timeout`.
    pub fn connect(endpoint: &Login<'_>, timeout: Duration) -> Result<Session, WireError> {
        let Established {
            framed,
            connection_id,
            cache_metadata,
        } = open(endpoint, timeout)?;
        Ok(Session {
            framed,
            connection_id,
            cache_metadata,
            broken: false,
            prepared: HashMap::new(),
        })
    }

    /// The server's id of this connection (its processlist id).
    pub fn connection_id(&self) -> u32 {
        self.connection_id
    }

    /// Prepare `sql` on the server, or hand out the statement prepared before from it.
    pub fn prepare(&mut self, sql: &str) -> Result<Prepared, WireError> {
        if let Some(known) = self.prepared.get(sql) {
            return Ok(known.clone());
        }
        self.start(COM_STMT_PREPARE)
            .extend_from_slice(sql.as_bytes());
        let stmt = self.exchange(|s| {
            let p = s.framed.next_packet()?;
            match p.first() {
                Some(0x00) if p.len() >= 9 => {}
                Some(0xFF) => return Err(WireError::from_packet(p)),
                _ => return Err(WireError::protocol("unexpected answer to a prepare")),
            }
            let id = u32::from_le_bytes([p[1], p[2], p[3], p[4]]);
            let columns = usize::from(u16::from_le_bytes([p[5], p[6]]));
            let params = usize::from(u16::from_le_bytes([p[7], p[8]]));
            // Parameter then column definitions, each list closed by an EOF packet.
            if params > 0 {
                s.skip(params + 1)?;
            }
            let defs = s.columns(columns)?;
            Ok(Prepared {
                id,
                params,
                columns,
                bound: Vec::new(),
                defs: Arc::new(defs),
            })
        })?;
        self.prepared.insert(sql.to_string(), stmt.clone());
        Ok(stmt)
    }

    pub fn execute(
        &mut self,
        stmt: &mut Prepared,
        params: &[Value<'_>],
    ) -> Result<Outcome, WireError> {
        self.execute_then(stmt, params, Session::read_outcome)
    }

    /// Like `execute`, and the rows of its last result set as text (`None`: it returned
    /// none).
    pub fn execute_rows(
        &mut self,
        stmt: &mut Prepared,
        params: &[Value<'_>],
    ) -> Result<Option<Rows>, WireError> {
        let defs = Arc::clone(&stmt.defs);
        self.execute_then(stmt, params, |s| s.read_rows(Some(&defs)))
    }

    /// `sql` over the text protocol, and the rows of its last result set as text.
    pub fn query_rows(&mut self, sql: &str) -> Result<Option<Rows>, WireError> {
        self.start(COM_QUERY).extend_from_slice(sql.as_bytes());
        self.exchange(|s| s.read_rows(None))
    }

    fn execute_then<T>(
        &mut self,
        stmt: &mut Prepared,
        params: &[Value<'_>],
        read: impl FnOnce(&mut Session) -> Result<T, WireError>,
    ) -> Result<T, WireError> {
        if params.len() != stmt.params {
            return Err(WireError::protocol(format!(
                "the statement takes {} parameters, {} given",
                stmt.params,
                params.len()
            )));
        }
        let out = self.start(COM_STMT_EXECUTE);
        out.extend_from_slice(&stmt.id.to_le_bytes());
        // No cursor, one iteration.
        out.extend_from_slice(&[0, 1, 0, 0, 0]);
        if put_params(out, params, &mut stmt.bound) {
            // Later copies of this statement (a new worker on the same connection) need
            // not announce the types again either.
            if let Some(known) = self.prepared.values_mut().find(|p| p.id == stmt.id) {
                known.bound.clone_from(&stmt.bound);
            }
        }
        let result = self.exchange(read);
        if result.is_err() && self.broken {
            // Nothing is known any more of what the server holds for it.
            stmt.bound.clear();
        }
        result
    }

    pub fn query(&mut self, sql: &str) -> Result<Outcome, WireError> {
        self.start(COM_QUERY).extend_from_slice(sql.as_bytes());
        self.exchange(Session::read_outcome)
    }

    /// Free a statement on the server (no answer comes).
    pub fn close(&mut self, stmt: Prepared) -> Result<(), WireError> {
        self.prepared.retain(|_, p| p.id != stmt.id);
        self.start(COM_STMT_CLOSE)
            .extend_from_slice(&stmt.id.to_le_bytes());
        self.framed.send()
    }

    fn start(&mut self, command: u8) -> &mut Vec<u8> {
        let out = self.framed.command();
        out.push(command);
        out
    }

    /// Send the command built by `start` and read its answer with `read`. A failure other
    /// than the server's own error leaves the connection unusable.
    fn exchange<T>(
        &mut self,
        read: impl FnOnce(&mut Session) -> Result<T, WireError>,
    ) -> Result<T, WireError> {
        if self.broken {
            return Err(WireError::protocol(
                "the connection failed earlier and was not re-established",
            ));
        }
        let result = self.framed.send().and_then(|_| read(self));
        match &result {
            Err(WireError::Server { .. }) if self.framed.drained() => {}
            Err(_) => self.broken = true,
            Ok(_) => {}
        }
        result
    }

    /// Read a statement's answer to its end: OK, error, or result sets with their rows.
    fn read_outcome(&mut self) -> Result<Outcome, WireError> {
        let mut outcome = Outcome::default();
        loop {
            let p = self.framed.next_packet()?;
            let status = match p.first() {
                Some(0x00) => ok_packet(p, &mut outcome)?,
                Some(0xFF) => return Err(WireError::from_packet(p)),
                Some(0xFB) => return Err(WireError::protocol("LOCAL INFILE is not supported")),
                Some(_) => {
                    let mut at = 0;
                    let columns = lenenc(p, &mut at)
                        .ok_or_else(|| WireError::protocol("unreadable column count"))?;
                    // MariaDB with cached metadata says whether definitions follow.
                    let definitions = !self.cache_metadata || p.get(at) != Some(&0);
                    outcome.result_set = true;
                    let before_rows = if definitions { columns as usize + 1 } else { 1 };
                    self.skip(before_rows)?;
                    let (rows, status) = self.count_rows()?;
                    outcome.rows += rows;
                    status
                }
                None => return Err(WireError::protocol("empty packet")),
            };
            if status & SERVER_MORE_RESULTS_EXISTS == 0 {
                return Ok(outcome);
            }
        }
    }

    /// Like `read_outcome`, keeping the last result set's rows as text: binary-protocol rows
    /// when `prepared` gives the statement's columns (used when the server sends none).
    fn read_rows(&mut self, prepared: Option<&[Column]>) -> Result<Option<Rows>, WireError> {
        let mut last = None;
        loop {
            let p = self.framed.next_packet()?;
            let status = match p.first() {
                Some(0x00) => ok_packet(p, &mut Outcome::default())?,
                Some(0xFF) => return Err(WireError::from_packet(p)),
                Some(0xFB) => return Err(WireError::protocol("LOCAL INFILE is not supported")),
                Some(_) => {
                    let mut at = 0;
                    let count = lenenc(p, &mut at)
                        .ok_or_else(|| WireError::protocol("unreadable column count"))?
                        as usize;
                    let definitions = !self.cache_metadata || p.get(at) != Some(&0);
                    let defs = match (definitions, prepared) {
                        (true, _) => self.columns(count)?,
                        (false, Some(d)) => {
                            // The definitions left out, their closing EOF still comes.
                            self.skip(1)?;
                            d.to_vec()
                        }
                        (false, None) => {
                            return Err(WireError::protocol("a result set without its columns"))
                        }
                    };
                    let mut rows = Vec::new();
                    let status = loop {
                        let p = self.framed.next_packet()?;
                        match p.first() {
                            Some(0xFE) if p.len() < 9 => {
                                break p.get(3..5).map_or(0, |s| u16::from_le_bytes([s[0], s[1]]))
                            }
                            Some(0xFF) => return Err(WireError::from_packet(p)),
                            _ if prepared.is_some() => rows.push(decode::binary_row(p, &defs)?),
                            _ => rows.push(decode::text_row(p, defs.len())?),
                        }
                    };
                    last = Some(Rows {
                        columns: defs.into_iter().map(|c| c.name).collect(),
                        rows,
                    });
                    status
                }
                None => return Err(WireError::protocol("empty packet")),
            };
            if status & SERVER_MORE_RESULTS_EXISTS == 0 {
                return Ok(last);
            }
        }
    }

    /// `n` column definitions and their closing EOF packet (none when `n` is 0).
    fn columns(&mut self, n: usize) -> Result<Vec<Column>, WireError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let mut defs = Vec::with_capacity(n);
        for _ in 0..n {
            let p = self.framed.next_packet()?;
            if p.first() == Some(&0xFF) {
                return Err(WireError::from_packet(p));
            }
            defs.push(decode::column(p)?);
        }
        self.skip(1)?;
        Ok(defs)
    }

    /// Read rows up to the closing EOF packet; return their count and the EOF's status.
    fn count_rows(&mut self) -> Result<(u64, u16), WireError> {
        let mut rows = 0;
        loop {
            let p = self.framed.next_packet()?;
            match p.first() {
                Some(0xFE) if p.len() < 9 => {
                    let status = p.get(3..5).map_or(0, |s| u16::from_le_bytes([s[0], s[1]]));
                    return Ok((rows, status));
                }
                Some(0xFF) => return Err(WireError::from_packet(p)),
                _ => rows += 1,
            }
        }
    }

    /// Skip `n` packets (definitions and their closing EOF), stopping at an error packet.
    fn skip(&mut self, n: usize) -> Result<(), WireError> {
        for _ in 0..n {
            let p = self.framed.next_packet()?;
            if p.first() == Some(&0xFF) {
                return Err(WireError::from_packet(p));
            }
        }
        Ok(())
    }
}

/// An OK packet's affected rows and insert id into `outcome`; its status flags.
fn ok_packet(p: &[u8], outcome: &mut Outcome) -> Result<u16, WireError> {
    let mut at = 1;
    let affected = lenenc(p, &mut at);
    let insert_id = lenenc(p, &mut at);
    let (Some(affected), Some(insert_id), Some(st)) = (affected, insert_id, p.get(at..at + 2))
    else {
        return Err(WireError::protocol("truncated OK packet"));
    };
    outcome.affected_rows += affected;
    outcome.last_insert_id = insert_id;
    Ok(u16::from_le_bytes([st[0], st[1]]))
}

impl Drop for Session {
    /// Say goodbye, so that the server does not count an aborted client.
    fn drop(&mut self) {
        if !self.broken {
            self.start(COM_QUIT);
            let _ = self.framed.send();
        }
    }
}
