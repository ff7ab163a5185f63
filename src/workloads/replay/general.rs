//! MySQL's and MariaDB's general query log: `TIME\tID COMMAND\tARGUMENT`, the time written
//! only when it changed (MariaDB, to the second) or on every line (MySQL, to the
//! microsecond); a statement's later lines follow it unprefixed.
//!
//! `Query` and a prepared statement's `Execute` (written with its values in place) are
//! replayed as text; `Prepare`, `Close stmt`, `Connect`, `Quit` and the like are not
//! statements of their own.

use super::{clock, Capture, Format, Statement, StatementKind, Unparsed};
use std::collections::HashMap;

/// The commands the server writes in its log (sql/sql_parse.cc's command names).
const COMMANDS: &[&str] = &[
    "Query",
    "Execute",
    "Prepare",
    "Close stmt",
    "Reset stmt",
    "Long Data",
    "Fetch",
    "Connect",
    "Connect Out",
    "Quit",
    "Init DB",
    "Field List",
    "Statistics",
    "Ping",
    "Change user",
    "Set option",
    "Refresh",
    "Shutdown",
    "Processlist",
    "Kill",
    "Debug",
    "Daemon",
    "Binlog Dump",
    "Binlog Dump GTID",
    "Register Slave",
    "Table Dump",
    "Sleep",
    "Time",
    "Error",
    "Bulk_execute",
    "Com_multi",
    "Reset Connection",
    "Clone",
];

/// One entry's head: its time where written, its connection id, its command and the first
/// line of its argument.
pub struct Entry<'a> {
    pub at_us: Option<u64>,
    pub id: u64,
    pub command: &'a str,
    pub argument: &'a str,
}

/// `line` as an entry's first line, if it is one.
pub fn entry(line: &str) -> Option<Entry<'_>> {
    let (at_us, rest) = if line.starts_with('\t') {
        (None, line.trim_start_matches('\t'))
    } else {
        let (time, rest) = line.split_once('\t')?;
        let at = if time.contains('T') {
            clock::iso(time.trim())?
        } else {
            let (date, hms) = time.split_once(' ')?;
            clock::short(date, hms.trim_start())?
        };
        (Some(at), rest)
    };
    let rest = rest.trim_start_matches(' ');
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let id: u64 = rest[..digits].parse().ok()?;
    let rest = rest[digits..].strip_prefix(' ')?.trim_start_matches(' ');
    let (command, argument) = rest.split_once('\t').unwrap_or((rest, ""));
    COMMANDS.contains(&command).then_some(Entry {
        at_us,
        id,
        command,
        argument,
    })
}

pub fn parse(text: &str) -> Result<Capture, Unparsed> {
    let mut sessions: Vec<Vec<Statement>> = Vec::new();
    let mut by_id: HashMap<u64, usize> = HashMap::new();
    let mut skipped = 0;
    let mut last_time = None;
    // The statement whose later lines are being read: (session, index).
    let mut open: Option<(usize, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let Some(e) = entry(line) else {
            if super::is_mysql_banner(line) {
                open = None;
            } else if let Some((s, k)) = open {
                let sql = &mut sessions[s][k].sql;
                sql.push('\n');
                sql.push_str(line);
            } else if !line.trim().is_empty() {
                return Err(Unparsed {
                    line: i + 1,
                    expected: "a line of a MySQL or MariaDB general query log \
                               (TIME, ID, COMMAND and ARGUMENT)"
                        .into(),
                });
            }
            continue;
        };
        last_time = e.at_us.or(last_time);
        if e.command != "Query" && e.command != "Execute" {
            skipped += 1;
            open = None;
            continue;
        }
        let s = *by_id.entry(e.id).or_insert_with(|| {
            sessions.push(Vec::new());
            sessions.len() - 1
        });
        sessions[s].push(Statement {
            line: i + 1,
            at_us: last_time,
            kind: StatementKind::Other,
            sql: e.argument.to_string(),
        });
        open = Some((s, sessions[s].len() - 1));
    }
    for st in sessions.iter_mut().flatten() {
        st.kind = StatementKind::of(&st.sql);
    }
    Ok(Capture {
        format: Format::GeneralLog,
        sessions,
        skipped,
    })
}
