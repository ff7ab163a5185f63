//! pgbench's custom-script language (PostgreSQL 15's pgbench, "Custom Scripts"): parsing a
//! script file, evaluating `\set` expressions with pgbench's generators and functions, and
//! running a script's commands for one client over an [`Sql`] connection.

mod client;
mod coerce;
mod context;
mod eval;
mod expr;
mod functions;
mod hash;
mod parse;
mod prng;
mod random;
mod sqlscan;
mod value;

#[cfg(test)]
mod tests;

pub use crate::workloads::EventError;
pub use client::{Client, Seeding};
pub use expr::{Expr, Func};
pub use parse::parse;
pub use prng::PgPrng;
pub use value::Value;

/// A mistake in a script found while parsing: Display is "FILE:LINE: MESSAGE".
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct ScriptError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// One parsed script file.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    pub name: String,
    pub commands: Vec<Command>,
}

/// One command of a script: an SQL command or a meta command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Sql(SqlCommand),
    Meta(MetaCommand),
}

impl Command {
    /// The 1-based line the command starts on.
    pub fn line(&self) -> usize {
        match self {
            Command::Sql(s) => s.line,
            Command::Meta(m) => m.line,
        }
    }
}

/// A backslash command.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaCommand {
    pub line: usize,
    /// The command's name as written (`set`, `SET`…), for messages.
    pub name: String,
    pub kind: Meta,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Meta {
    Set {
        var: String,
        expr: Expr,
    },
    /// `\sleep`: `amount` is a number or `:variable`, times `unit_us` microseconds.
    Sleep {
        amount: SleepAmount,
        unit_us: i64,
    },
    If(Expr),
    Elif(Expr),
    Else,
    Endif,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SleepAmount {
    Fixed(i64),
    Var(String),
}

/// An SQL command as it goes to the server.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlCommand {
    pub line: usize,
    /// As written (for messages and simple mode).
    pub text: String,
    /// The variables replaced by `?` (psbench's Session numbers them $1.. on PostgreSQL).
    pub prepared_sql: String,
    /// Variable names, in `?` order.
    pub params: Vec<String>,
    pub rows: RowsWanted,
}

/// Whether the command's result is stored into variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowsWanted {
    None,
    Gset { prefix: String },
    Aset { prefix: String },
}

impl Script {
    /// The SQL commands, with their index among all commands.
    pub fn sql_commands(&self) -> impl Iterator<Item = (usize, &SqlCommand)> {
        self.commands
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match c {
                Command::Sql(s) => Some((i, s)),
                Command::Meta(_) => None,
            })
    }

    pub fn command_count(&self) -> usize {
        self.commands.len()
    }

    /// Command `i` on one line, as a report names it: its SQL with blanks folded, or the
    /// meta command's name with a backslash.
    pub fn command_text(&self, i: usize) -> String {
        match &self.commands[i] {
            Command::Sql(s) => s.text.split_whitespace().collect::<Vec<_>>().join(" "),
            Command::Meta(m) => format!("\\{}", m.name),
        }
    }
}

/// "file.sql@3" → ("file.sql", 3); no '@' → weight 1. pgbench's parseScriptWeight: the last
/// '@' separates, the weight is a decimal number in 0..=2147483647.
pub fn split_weight(arg: &str) -> Result<(String, u32), String> {
    let Some((name, w)) = arg.rsplit_once('@') else {
        return Ok((arg.to_string(), 1));
    };
    let sep = &arg[name.len()..];
    // strtol: leading blanks and a sign, then digits to the end.
    let t = w.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("invalid weight specification: {sep}"));
    }
    let Ok(v) = t.parse::<i64>() else {
        return Err(format!("invalid weight specification: {sep}"));
    };
    if !(0..=i32::MAX as i64).contains(&v) {
        return Err(format!(
            "weight specification out of range (0 .. {}): {v}",
            i32::MAX
        ));
    }
    Ok((name.to_string(), v as u32))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Simple,
    Prepared,
}

/// What an SQL command returned, when asked for rows (\gset, \aset): the last result set
/// of the command.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
}

/// Runs SQL for the interpreter (psbench implements it over its server connections).
pub trait Sql {
    /// Simple mode: `sql` with the variables' values written in. `want_rows`: return the rows.
    fn run_text(&mut self, sql: &str, want_rows: bool) -> Result<Option<Rows>, EventError>;
    /// Prepared mode: command `command` of script `script`, with its params' values.
    fn run_prepared(
        &mut self,
        script: usize,
        command: usize,
        params: &[Value],
        want_rows: bool,
    ) -> Result<Option<Rows>, EventError>;
}

/// How a transaction failed at run time.
#[derive(Debug)]
pub enum RunError {
    /// A meta command failed (division by zero, undefined variable, empty random range,
    /// out-of-range parameter, integer overflow, \gset given no row or two rows…): pgbench's
    /// words, with script, command (0-based, as pgbench's "aborted in command N") and line.
    Script {
        script: usize,
        command: usize,
        line: usize,
        message: String,
    },
    /// The server refused a statement or the connection was lost.
    Sql(EventError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Script {
                script,
                command,
                line,
                message,
            } => write!(
                f,
                "script {script} command {command} (line {line}) failed: {message}"
            ),
            RunError::Sql(EventError::Retryable { code, message }) => {
                write!(f, "{message} (SQLSTATE {code})")
            }
            RunError::Sql(EventError::ConnectionLost(m)) => write!(f, "connection lost: {m}"),
            RunError::Sql(EventError::Failed(m)) => write!(f, "{m}"),
            RunError::Sql(EventError::Fatal(e)) => write!(f, "{e:#}"),
        }
    }
}
