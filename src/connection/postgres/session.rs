//! One PostgreSQL connection over the frontend/backend protocol (version 3): start-up with
//! SCRAM-SHA-256, MD5 or cleartext authentication, then simple queries. Messages are framed
//! and parsed by the `postgres-protocol` crate; this file only keeps the conversation in step.

use bytes::BytesMut;
use fallible_iterator::FallibleIterator;
use postgres_protocol::authentication::{md5_hash, sasl};
use postgres_protocol::message::{backend::Message, frontend};
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// How a PostgreSQL exchange failed.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The server's ErrorResponse: SQLSTATE and message.
    #[error("{severity} {code}: {message}")]
    Server {
        severity: String,
        code: String,
        message: String,
    },
    #[error("protocol: {0}")]
    Protocol(String),
}

/// Where and as whom to log in.
pub struct PgLogin<'a> {
    /// The directory holding the server's socket (`.s.PGSQL.<port>`); TCP when `None`.
    pub socket_dir: Option<&'a Path>,
    pub host: &'a str,
    pub port: u16,
    pub user: &'a str,
    pub password: Option<&'a str>,
    pub database: &'a str,
}

enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Rows of a simple query in text form (`None` for SQL NULL).
pub type TextRows = Vec<Vec<Option<String>>>;

pub struct PgSession {
    stream: Stream,
    pub(super) inbox: BytesMut,
    pub(super) outbox: BytesMut,
    backend_pid: i32,
    parameters: BTreeMap<String, String>,
    /// Set when a response was not read to its end: the connection is out of step.
    pub(super) broken: bool,
    /// Names given to this session's prepared statements so far.
    pub(super) statements: u32,
}

impl PgSession {
    /// Connect and authenticate; each read waits at most `timeout`.
    pub fn connect(login: &PgLogin<'_>, timeout: Duration) -> Result<PgSession, PgError> {
        let stream = match login.socket_dir {
            Some(dir) => {
                let s = UnixStream::connect(dir.join(format!(".s.PGSQL.{}", login.port)))?;
                s.set_read_timeout(Some(timeout))?;
                Stream::Unix(s)
            }
            None => {
                let addr = (login.host, login.port);
                let addr = std::net::ToSocketAddrs::to_socket_addrs(&addr)?
                    .next()
                    .ok_or_else(|| io::Error::other(format!("no address for {}", login.host)))?;
                let s = TcpStream::connect_timeout(&addr, timeout)?;
                s.set_read_timeout(Some(timeout))?;
                s.set_nodelay(true)?;
                Stream::Tcp(s)
            }
        };
        let mut s = PgSession {
            stream,
            inbox: BytesMut::with_capacity(8192),
            outbox: BytesMut::with_capacity(1024),
            backend_pid: 0,
            parameters: BTreeMap::new(),
            broken: false,
            statements: 0,
        };
        s.start_up(login)?;
        Ok(s)
    }

    fn start_up(&mut self, login: &PgLogin<'_>) -> Result<(), PgError> {
        let params = [
            ("user", login.user),
            ("database", login.database),
            ("application_name", "psbench"),
            ("client_encoding", "UTF8"),
        ];
        frontend::startup_message(params.iter().copied(), &mut self.outbox)?;
        self.send()?;
        let password = || {
            login.password.map(str::as_bytes).ok_or_else(|| {
                PgError::Protocol("the server asks for a password and none was given".into())
            })
        };
        let mut scram: Option<sasl::ScramSha256> = None;
        loop {
            match self.receive()? {
                Message::AuthenticationOk => {}
                Message::AuthenticationCleartextPassword => {
                    frontend::password_message(password()?, &mut self.outbox)?;
                    self.send()?;
                }
                Message::AuthenticationMd5Password(body) => {
                    let hash = md5_hash(login.user.as_bytes(), password()?, body.salt());
                    frontend::password_message(hash.as_bytes(), &mut self.outbox)?;
                    self.send()?;
                }
                Message::AuthenticationSasl(body) => {
                    let mut mechanisms = body.mechanisms();
                    let mut offered = false;
                    while let Some(m) = mechanisms.next()? {
                        offered |= m == sasl::SCRAM_SHA_256;
                    }
                    if !offered {
                        return Err(PgError::Protocol(
                            "the server offers no SCRAM-SHA-256 authentication".into(),
                        ));
                    }
                    let s = sasl::ScramSha256::new(password()?, sasl::ChannelBinding::unsupported());
                    frontend::sasl_initial_response(sasl::SCRAM_SHA_256, s.message(), &mut self.outbox)?;
                    self.send()?;
                    scram = Some(s);
                }
                Message::AuthenticationSaslContinue(body) => {
                    let s = scram
                        .as_mut()
                        .ok_or_else(|| PgError::Protocol("SASL continue before start".into()))?;
                    s.update(body.data())?;
                    frontend::sasl_response(s.message(), &mut self.outbox)?;
                    self.send()?;
                }
                Message::AuthenticationSaslFinal(body) => {
                    let s = scram
                        .as_mut()
                        .ok_or_else(|| PgError::Protocol("SASL final before start".into()))?;
                    s.finish(body.data())?;
                }
                Message::BackendKeyData(body) => self.backend_pid = body.process_id(),
                Message::ParameterStatus(body) => self.note_parameter(&body)?,
                Message::ReadyForQuery(_) => return Ok(()),
                Message::ErrorResponse(body) => return Err(server_error(&body)),
                Message::NoticeResponse(_) => {}
                _ => {
                    return Err(PgError::Protocol(
                        "unexpected message during start-up (an authentication method psbench does not speak?)".into(),
                    ))
                }
            }
        }
    }

    /// The process id of the backend serving this connection (`pg_backend_pid()`).
    pub fn backend_pid(&self) -> i32 {
        self.backend_pid
    }

    /// A parameter the server reported at start-up or since (`server_version`, …).
    pub fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters.get(name).map(String::as_str)
    }

    /// Run `sql` (one or more statements) with the simple query protocol; the rows of every
    /// result set, in text form. An error ends the batch: the server rolls back what the batch
    /// ran in its implicit transaction.
    pub fn query(&mut self, sql: &str) -> Result<TextRows, PgError> {
        if self.broken {
            return Err(PgError::Protocol(
                "connection out of step after an earlier failure".into(),
            ));
        }
        frontend::query(sql, &mut self.outbox)?;
        self.send()?;
        self.broken = true;
        let mut rows = Vec::new();
        let mut failure = None;
        loop {
            match self.receive()? {
                Message::DataRow(row) => {
                    let buf = row.buffer();
                    let mut ranges = row.ranges();
                    let mut out = Vec::new();
                    while let Some(r) = ranges.next()? {
                        out.push(r.map(|r| String::from_utf8_lossy(&buf[r]).into_owned()));
                    }
                    rows.push(out);
                }
                Message::ErrorResponse(body) => failure = Some(server_error(&body)),
                Message::ParameterStatus(body) => self.note_parameter(&body)?,
                Message::ReadyForQuery(_) => break,
                // RowDescription, CommandComplete, EmptyQueryResponse, notices.
                _ => {}
            }
        }
        self.broken = false;
        match failure {
            Some(e) => Err(e),
            None => Ok(rows),
        }
    }

    /// A parameter the server reports (at start-up, or after a SET of one it reports).
    pub(super) fn note_parameter(
        &mut self,
        body: &postgres_protocol::message::backend::ParameterStatusBody,
    ) -> io::Result<()> {
        self.parameters
            .insert(body.name()?.to_string(), body.value()?.to_string());
        Ok(())
    }

    /// Run `sql` for its effect.
    pub fn run(&mut self, sql: &str) -> Result<(), PgError> {
        self.query(sql).map(|_| ())
    }

    pub(super) fn send(&mut self) -> io::Result<()> {
        let r = self.stream.write_all(&self.outbox);
        self.outbox.clear();
        r
    }

    pub(super) fn receive(&mut self) -> Result<Message, PgError> {
        let mut chunk = [0u8; 8192];
        loop {
            if let Some(m) = Message::parse(&mut self.inbox)? {
                return Ok(m);
            }
            let n = self.stream.read(&mut chunk)?;
            if n == 0 {
                self.broken = true;
                return Err(PgError::Io(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the connection",
                )));
            }
            self.inbox.extend_from_slice(&chunk[..n]);
        }
    }
}

impl Drop for PgSession {
    fn drop(&mut self) {
        frontend::terminate(&mut self.outbox);
        let _ = self.send();
    }
}

pub(super) fn server_error(
    body: &postgres_protocol::message::backend::ErrorResponseBody,
) -> PgError {
    let (mut severity, mut code, mut message) = (String::new(), String::new(), String::new());
    let mut fields = body.fields();
    while let Ok(Some(f)) = fields.next() {
        let value = String::from_utf8_lossy(f.value_bytes()).into_owned();
        match f.type_() {
            b'V' => severity = value,
            b'S' if severity.is_empty() => severity = value,
            b'C' => code = value,
            b'M' => message = value,
            _ => {}
        }
    }
    PgError::Server {
        severity,
        code,
        message,
    }
}
