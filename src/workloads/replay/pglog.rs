//! PostgreSQL's log with `log_statement = 'all'`: each statement a `statement:` message (the
//! simple protocol) or an `execute NAME:` message whose values follow in a `DETAIL:
//! parameters:` line (the extended protocol). The stderr log must carry the session
//! (`%c`) or the process (`%p`) in its `log_line_prefix`, after a leading `%m` or `%t`; the
//! csvlog carries both.

use super::{clock, Capture, Format, Statement, StatementKind, Unparsed};
use std::collections::HashMap;

/// The severities a message can carry, each written `SEVERITY:  message`.
const SEVERITIES: &[&str] = &[
    "LOG",
    "ERROR",
    "DETAIL",
    "STATEMENT",
    "FATAL",
    "WARNING",
    "HINT",
    "CONTEXT",
    "NOTICE",
    "PANIC",
    "INFO",
    "QUERY",
    "LOCATION",
    "DEBUG1",
    "DEBUG2",
    "DEBUG3",
    "DEBUG4",
    "DEBUG5",
];

/// After the timestamp: the rest of the prefix, the severity and the message.
pub fn split_message(rest: &str) -> Option<(&str, &str, &str)> {
    SEVERITIES
        .iter()
        .filter_map(|sev| {
            let at = rest.find(&format!("{sev}:  "))?;
            // A severity starts the line's message: nothing of a word runs into it.
            let before = rest[..at].chars().last();
            (before.is_none_or(|c| !c.is_ascii_alphanumeric()))
                .then(|| (at, &rest[..at], *sev, &rest[at + sev.len() + 3..]))
        })
        .min_by_key(|m| m.0)
        .map(|(_, prefix, sev, msg)| (prefix, sev, msg))
}

/// The session in a prefix: `%c` (hex start time, a dot, hex process id), else `%p`.
fn session_of(prefix: &str) -> Option<String> {
    let tokens: Vec<&str> = prefix
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .filter(|t| !t.is_empty())
        .collect();
    let is_hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    tokens
        .iter()
        .find(|t| {
            t.split_once('.')
                .is_some_and(|(a, b)| a.len() >= 6 && is_hex(a) && is_hex(b))
        })
        .or_else(|| {
            tokens
                .iter()
                .find(|t| t.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|t| t.to_string())
}

/// `$1 = '4074', $2 = NULL` as (number, literal as written).
fn parameters(detail: &str) -> Option<Vec<(usize, String)>> {
    let mut rest = detail.strip_prefix("parameters: ")?;
    let mut out = Vec::new();
    while let Some(r) = rest.strip_prefix('$') {
        let digits = r.find(|c: char| !c.is_ascii_digit())?;
        let n: usize = r[..digits].parse().ok()?;
        let r = r[digits..].strip_prefix(" = ")?;
        let (literal, after) = if let Some(r) = r.strip_prefix("NULL") {
            ("NULL".to_string(), r)
        } else {
            // A quoted value, its own quotes doubled.
            let body = r.strip_prefix('\'')?;
            let mut end = None;
            let bytes = body.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'\'' {
                    if bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    end = Some(i);
                    break;
                }
                i += 1;
            }
            let end = end?;
            (format!("'{}'", &body[..end]), &body[end + 1..])
        };
        out.push((n, literal));
        rest = after.strip_prefix(", ").unwrap_or(after);
    }
    Some(out)
}

/// `sql` with each `$N` outside quotes replaced by its value.
fn substitute(sql: &str, values: &[(usize, String)]) -> String {
    let by_n: HashMap<usize, &str> = values.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let mut out = String::with_capacity(sql.len() + 16);
    let mut chars = sql.char_indices().peekable();
    let mut quote: Option<char> = None;
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '$') => {
                let digits: String = sql[i + 1..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                if let Some(v) = digits.parse().ok().and_then(|n: usize| by_n.get(&n)) {
                    out.push_str(v);
                    for _ in 0..digits.len() {
                        chars.next();
                    }
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The sessions being read, each statement kept open for its values.
#[derive(Default)]
struct Sessions {
    list: Vec<Vec<Statement>>,
    by_key: HashMap<String, usize>,
    /// Per session: its last statement awaits a `DETAIL: parameters:` line.
    awaiting: HashMap<usize, bool>,
    skipped: u64,
}

impl Sessions {
    /// A message of session `key`; the index of the statement it began, if it began one.
    fn message(&mut self, key: &str, at_us: u64, line: usize, sev: &str, msg: &str) {
        let s = match self.by_key.get(key) {
            Some(&s) => s,
            None => {
                self.list.push(Vec::new());
                self.by_key.insert(key.to_string(), self.list.len() - 1);
                self.list.len() - 1
            }
        };
        if sev == "DETAIL" {
            if self.awaiting.remove(&s) == Some(true) {
                if let (Some(values), Some(last)) = (parameters(msg), self.list[s].last_mut()) {
                    last.sql = substitute(&last.sql, &values);
                }
            }
            return;
        }
        self.awaiting.remove(&s);
        if sev != "LOG" {
            return;
        }
        let (sql, execute) = if let Some(sql) = msg.strip_prefix("statement: ") {
            (sql, false)
        } else if let Some((_, sql)) = msg
            .strip_prefix("execute ")
            .and_then(|m| m.split_once(": "))
        {
            (sql, true)
        } else {
            self.skipped += 1;
            return;
        };
        self.list[s].push(Statement {
            line,
            at_us: Some(at_us),
            kind: StatementKind::of(sql),
            sql: sql.to_string(),
        });
        if execute {
            self.awaiting.insert(s, true);
        }
    }

    fn capture(self, format: Format) -> Capture {
        Capture {
            format,
            sessions: self.list,
            skipped: self.skipped,
        }
    }
}

pub fn parse_stderr(text: &str) -> Result<Capture, Unparsed> {
    let mut sessions = Sessions::default();
    // The session whose message a continuation line (a tab first) extends, and whether
    // that message was a statement.
    let mut open: Option<(usize, bool)> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(more) = line.strip_prefix('\t') {
            if let Some((s, true)) = open {
                if let Some(last) = sessions.list[s].last_mut() {
                    last.sql.push('\n');
                    last.sql.push_str(more);
                }
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let parsed = clock::pg_timestamp(line).and_then(|(at, rest)| {
            let (prefix, sev, msg) = split_message(rest)?;
            Some((at, prefix, sev, msg))
        });
        let Some((at, prefix, sev, msg)) = parsed else {
            return Err(Unparsed {
                line: i + 1,
                expected: "a line of a PostgreSQL stderr log (a log_line_prefix that starts \
                           with %m or %t, then SEVERITY:  message)"
                    .into(),
            });
        };
        let Some(key) = session_of(prefix) else {
            return Err(Unparsed {
                line: i + 1,
                expected: "a PostgreSQL log whose log_line_prefix carries the session (%c) \
                           or the process (%p)"
                    .into(),
            });
        };
        let before = sessions.list.iter().map(Vec::len).sum::<usize>();
        sessions.message(&key, at, i + 1, sev, msg);
        let began = sessions.list.iter().map(Vec::len).sum::<usize>() > before;
        open = Some((sessions.by_key[&key], began));
    }
    Ok(sessions.capture(Format::PgStderr))
}

/// csvlog's columns (PostgreSQL 15's documentation, "Using CSV-Format Log Output").
const LOG_TIME: usize = 0;
const SESSION_ID: usize = 5;
const SEVERITY: usize = 11;
const MESSAGE: usize = 13;
const DETAIL: usize = 14;

pub fn parse_csv(text: &str) -> Result<Capture, Unparsed> {
    let mut sessions = Sessions::default();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut record = csv::StringRecord::new();
    loop {
        let line_at = reader.position().line() as usize;
        let bad = |line: usize| Unparsed {
            line,
            expected: "a record of a PostgreSQL csvlog".into(),
        };
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(bad(e.position().map_or(line_at, |p| p.line() as usize))),
        }
        let line = record.position().map_or(line_at, |p| p.line() as usize);
        let at = clock::pg_timestamp(record.get(LOG_TIME).unwrap_or(""))
            .filter(|(_, rest)| rest.is_empty())
            .map(|(at, _)| at);
        let (Some(at), Some(key), Some(sev), Some(msg)) = (
            at,
            record.get(SESSION_ID),
            record.get(SEVERITY),
            record.get(MESSAGE),
        ) else {
            return Err(bad(line));
        };
        sessions.message(key, at, line, sev, msg);
        if let Some(detail) = record.get(DETAIL).filter(|d| !d.is_empty()) {
            sessions.message(key, at, line, "DETAIL", detail);
        }
    }
    Ok(sessions.capture(Format::PgCsv))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_go_where_their_numbers_stand_and_nowhere_in_quotes() {
        let v = parameters("parameters: $1 = '4074', $2 = 'it''s', $3 = NULL").unwrap();
        assert_eq!(
            substitute(
                "UPDATE t SET a = a + $1, b = $2, c = $3 WHERE d = '$1' AND e = $10",
                &v
            ),
            "UPDATE t SET a = a + '4074', b = 'it''s', c = NULL WHERE d = '$1' AND e = $10"
        );
    }

    #[test]
    fn the_session_is_found_in_either_prefix() {
        assert_eq!(
            session_of("|postgres|db|6b1610f1.4efb|").as_deref(),
            Some("6b1610f1.4efb")
        );
        assert_eq!(session_of(" [20219] ").as_deref(), Some("20219"));
        assert_eq!(session_of(" postgres@db "), None);
    }
}
