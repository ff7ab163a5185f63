//! MySQL's and MariaDB's slow query log taken with `long_query_time = 0`: each entry's
//! `#` lines (its time, where written, its connection, its query time), then `use DB;` and
//! `SET timestamp=N;` where the server adds them, then the statement ended by `;`.

use super::{clock, Capture, Format, Statement, StatementKind, Unparsed};
use std::collections::HashMap;

/// The entry being read.
#[derive(Default)]
struct Entry {
    id: Option<u64>,
    query_us: u64,
    body: Vec<String>,
    body_line: usize,
}

/// The number after `key` in a `#` line (`Id:    31`, `Thread_id: 5`).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(key)? + key.len();
    let rest = line[at..].trim_start();
    Some(rest.split_whitespace().next().unwrap_or(""))
}

/// `# Time: …` in either server's way of writing it.
fn time_line(rest: &str) -> Option<u64> {
    let rest = rest.trim();
    if rest.contains('T') {
        return clock::iso(rest);
    }
    let (date, hms) = rest.split_once(' ')?;
    clock::short(date, hms.trim_start())
}

/// A body line the server adds before the statement.
fn is_preamble(line: &str) -> bool {
    let l = line.trim();
    (l.starts_with("use ") || l.starts_with("SET timestamp=")) && l.ends_with(';')
}

pub fn parse(text: &str) -> Result<Capture, Unparsed> {
    let mut sessions: Vec<Vec<Statement>> = Vec::new();
    let mut by_id: HashMap<u64, usize> = HashMap::new();
    let mut skipped = 0;
    let mut time: Option<u64> = None;
    let mut entry: Option<Entry> = None;
    let mut finish = |e: Entry, time: Option<u64>, skipped: &mut u64| {
        let sql = e.body.join("\n");
        let sql = sql.trim().trim_end_matches(';').trim_end();
        if sql.is_empty() {
            *skipped += 1;
            return;
        }
        let s = *by_id.entry(e.id.unwrap_or(0)).or_insert_with(|| {
            sessions.push(Vec::new());
            sessions.len() - 1
        });
        sessions[s].push(Statement {
            line: e.body_line,
            // The entry's time is when it ended.
            at_us: time.map(|t| t.saturating_sub(e.query_us)),
            kind: StatementKind::of(sql),
            sql: sql.to_string(),
        });
    };
    for (i, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("# Time: ") {
            if let Some(e) = entry.take() {
                finish(e, time, &mut skipped);
            }
            time = Some(time_line(rest).ok_or_else(|| Unparsed {
                line: i + 1,
                expected: "a slow log's `# Time:` line".into(),
            })?);
            continue;
        }
        if line.starts_with("# User@Host: ") {
            if let Some(e) = entry.take() {
                finish(e, time, &mut skipped);
            }
            entry = Some(Entry {
                id: field(line, " Id:").and_then(|v| v.parse().ok()),
                ..Entry::default()
            });
            continue;
        }
        let Some(e) = entry.as_mut() else {
            if super::is_mysql_banner(line) || line.trim().is_empty() {
                continue;
            }
            return Err(Unparsed {
                line: i + 1,
                expected: "a line of a MySQL or MariaDB slow query log (an entry opens with \
                           `# User@Host:`)"
                    .into(),
            });
        };
        if e.body.is_empty() && line.starts_with("# ") {
            if let Some(id) = field(line, "# Thread_id:").and_then(|v| v.parse().ok()) {
                e.id = Some(id);
            }
            if let Some(q) = field(line, "# Query_time:").and_then(|v| v.parse::<f64>().ok()) {
                e.query_us = (q * 1e6).round() as u64;
            }
            continue;
        }
        if e.body.is_empty() && is_preamble(line) || super::is_mysql_banner(line) {
            continue;
        }
        if e.body.is_empty() {
            e.body_line = i + 1;
        }
        e.body.push(line.to_string());
    }
    if let Some(e) = entry.take() {
        finish(e, time, &mut skipped);
    }
    Ok(Capture {
        format: Format::SlowLog,
        sessions,
        skipped,
    })
}
