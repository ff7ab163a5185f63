//! A captured workload replayed (`workload = "replay"`): a query log read into its sessions,
//! each session's statements replayed in their order on one connection of its own, at the
//! recorded pace or as fast as the server answers.
//!
//! A production log holds data, so nothing of a statement's text leaves this module: results
//! carry statement kinds, counts and the log's line numbers only.

mod clock;
mod general;
mod pglog;
mod slow;
mod workload;

#[cfg(test)]
mod tests;

pub use workload::{Failures, Pace, ReplayWorkload};

use crate::error::usage;
use anyhow::Result;
use std::sync::{Arc, Mutex};

/// The log formats a capture is read from, detected from its first lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// MySQL's and MariaDB's general query log.
    GeneralLog,
    /// MySQL's and MariaDB's slow query log, taken with `long_query_time = 0`.
    SlowLog,
    /// PostgreSQL's stderr log with `log_statement = 'all'`.
    PgStderr,
    /// PostgreSQL's csvlog with `log_statement = 'all'`.
    PgCsv,
}

impl Format {
    /// The format's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Format::GeneralLog => "MySQL/MariaDB general query log",
            Format::SlowLog => "MySQL/MariaDB slow query log",
            Format::PgStderr => "PostgreSQL stderr log",
            Format::PgCsv => "PostgreSQL csvlog",
        }
    }

    /// Whether a server of this family wrote it (a MySQL log is not replayed on PostgreSQL).
    pub fn written_by_postgresql(self) -> bool {
        matches!(self, Format::PgStderr | Format::PgCsv)
    }
}

/// A statement's kind: the classes a replay reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum StatementKind {
    Select,
    Insert,
    Update,
    Delete,
    Transaction,
    Other,
}

impl StatementKind {
    pub const ALL: [StatementKind; 6] = [
        StatementKind::Select,
        StatementKind::Insert,
        StatementKind::Update,
        StatementKind::Delete,
        StatementKind::Transaction,
        StatementKind::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StatementKind::Select => "SELECT",
            StatementKind::Insert => "INSERT",
            StatementKind::Update => "UPDATE",
            StatementKind::Delete => "DELETE",
            StatementKind::Transaction => "BEGIN/COMMIT",
            StatementKind::Other => "other",
        }
    }

    /// The kind of `sql` by its first word (comments and parentheses before it skipped).
    pub fn of(sql: &str) -> StatementKind {
        let word: String = first_word(sql).to_ascii_uppercase();
        match word.as_str() {
            "SELECT" | "WITH" | "TABLE" | "VALUES" => StatementKind::Select,
            "INSERT" | "REPLACE" => StatementKind::Insert,
            "UPDATE" => StatementKind::Update,
            "DELETE" => StatementKind::Delete,
            "BEGIN" | "START" | "COMMIT" | "ROLLBACK" | "END" | "ABORT" | "SAVEPOINT"
            | "RELEASE" | "XA" => StatementKind::Transaction,
            _ => StatementKind::Other,
        }
    }
}

/// The first word of `sql`, past blanks, `--` and `#` line comments, `/* */` comments
/// (MySQL's `/*! */` too) and opening parentheses.
fn first_word(sql: &str) -> &str {
    let mut s = sql;
    loop {
        s = s.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
        if let Some(rest) = s.strip_prefix("/*") {
            s = rest.split_once("*/").map_or("", |(_, r)| r);
        } else if s.starts_with("--") || s.starts_with('#') {
            s = s.split_once('\n').map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    let end = s
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(s.len());
    &s[..end]
}

/// One statement of a captured session.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// The log's line the statement starts on (1-based): how a failure is named.
    pub line: usize,
    /// When it started, in microseconds from the capture's first statement, where the log
    /// says.
    pub at_us: Option<u64>,
    pub kind: StatementKind,
    pub sql: String,
}

/// A log read: its sessions, each its statements in order.
#[derive(Clone, Debug)]
pub struct Capture {
    pub format: Format,
    pub sessions: Vec<Vec<Statement>>,
    /// Log entries that are not statements to replay: connects, quits, a prepared
    /// statement's Prepare and Close (its Execute is replayed), a slow log's `SET timestamp`.
    pub skipped: u64,
}

impl Capture {
    /// Read the log at `path`.
    pub fn read(path: &str) -> Result<Capture> {
        let bytes =
            std::fs::read(path).map_err(|e| usage(format!("cannot read log {path}: {e}")))?;
        let text = String::from_utf8_lossy(&bytes);
        Capture::parse(path, &text)
    }

    /// Read the log at `path` once per process: a study asks of it at each stage.
    pub fn read_shared(path: &str) -> Result<Arc<Capture>> {
        static READ: Mutex<Vec<(String, Arc<Capture>)>> = Mutex::new(Vec::new());
        let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, c)) = read.iter().find(|(p, _)| p == path) {
            return Ok(Arc::clone(c));
        }
        let c = Arc::new(Capture::read(path)?);
        read.push((path.to_string(), Arc::clone(&c)));
        Ok(c)
    }

    /// Parse `text`, the log named `name` (for messages).
    pub fn parse(name: &str, text: &str) -> Result<Capture> {
        let mut capture = match detect(text) {
            Some(Format::GeneralLog) => general::parse(text),
            Some(Format::SlowLog) => slow::parse(text),
            Some(Format::PgStderr) => pglog::parse_stderr(text),
            Some(Format::PgCsv) => pglog::parse_csv(text),
            None => Err(Unparsed {
                line: first_content_line(text),
                expected: "a MySQL or MariaDB general or slow query log, or a PostgreSQL \
                           stderr log or csvlog with log_statement = 'all'"
                    .into(),
            }),
        }
        .map_err(|e| usage(format!("{name}:{}: not {}", e.line, e.expected)))?;
        capture.sessions.retain(|s| !s.is_empty());
        if capture.sessions.is_empty() {
            return Err(usage(format!(
                "{name}: a {} with no statement to replay",
                capture.format.name()
            )));
        }
        clock::from_first(&mut capture.sessions);
        Ok(capture)
    }

    /// Why a server of `dialect` cannot replay it: a MySQL-family log is not PostgreSQL's.
    pub fn refused_on(format: Format, dialect: crate::connection::Dialect) -> Option<String> {
        let postgres = dialect.supports_pgbench();
        (format.written_by_postgresql() != postgres).then(|| {
            format!(
                "a {} is replayed on {}",
                format.name(),
                if format.written_by_postgresql() {
                    "PostgreSQL"
                } else {
                    "MySQL or MariaDB"
                }
            )
        })
    }

    pub fn statements(&self) -> usize {
        self.sessions.iter().map(Vec::len).sum()
    }

    /// Statements of each kind, in [`StatementKind::ALL`]'s order.
    pub fn per_kind(&self) -> [u64; 6] {
        let mut n = [0; 6];
        for s in self.sessions.iter().flatten() {
            n[s.kind as usize] += 1;
        }
        n
    }

    /// Seconds from the first statement to the last one's start, where the log says.
    pub fn span_s(&self) -> Option<f64> {
        let last = self
            .sessions
            .iter()
            .flatten()
            .filter_map(|s| s.at_us)
            .max()?;
        Some(last as f64 / 1e6)
    }
}

/// Why a log did not parse: the line, and what it is not.
#[derive(Debug)]
pub struct Unparsed {
    pub line: usize,
    pub expected: String,
}

/// The line of the first non-empty line (1 for an empty log).
fn first_content_line(text: &str) -> usize {
    text.lines()
        .position(|l| !l.trim().is_empty())
        .map_or(1, |i| i + 1)
}

/// The server's banner a MySQL-family log opens with (and repeats after FLUSH LOGS).
fn is_mysql_banner(line: &str) -> bool {
    line.contains(", Version: ") && line.ends_with("started with:")
        || line.starts_with("Tcp port: ")
        || line.starts_with("Time") && line.contains("Id Command")
}

/// The format of `text` from its first line that is not a banner.
pub fn detect(text: &str) -> Option<Format> {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty() && !is_mysql_banner(l))?;
    if line.starts_with("# Time: ") || line.starts_with("# User@Host: ") {
        return Some(Format::SlowLog);
    }
    if general::entry(line).is_some() {
        return Some(Format::GeneralLog);
    }
    if let Some((_, rest)) = clock::pg_timestamp(line) {
        if rest.starts_with(',') {
            return Some(Format::PgCsv);
        }
        if pglog::split_message(rest).is_some() {
            return Some(Format::PgStderr);
        }
    }
    None
}
