//! Parsing a script file into commands, as pgbench's ParseScript,
//! process_backslash_command and CheckConditional, with their messages.

use super::expr::parse_expr;
use super::sqlscan::{End, MetaLine, Scanner};
use super::{Command, Meta, MetaCommand, RowsWanted, Script, ScriptError, SleepAmount, SqlCommand};

/// Parse one script; `file_label` names it in messages.
pub fn parse(file_label: &str, text: &str) -> Result<Script, ScriptError> {
    let err = |line: usize, message: String| ScriptError {
        file: file_label.to_string(),
        line,
        message,
    };
    let mut sc = Scanner::new(text);
    let mut commands: Vec<Command> = Vec::new();
    // The text of each meta command, for "\gset must follow an SQL command (…)".
    let mut raw: Vec<Option<String>> = Vec::new();
    loop {
        let piece = sc.sql();
        if !piece.text.is_empty() {
            commands.push(Command::Sql(sql_command(piece.line, piece.text)));
            raw.push(None);
        }
        match piece.end {
            End::Eof => break,
            End::Semicolon => continue,
            End::Backslash => {}
        }
        let m = sc.meta();
        let Some(name) = m.words.first().cloned() else {
            continue; // a lone backslash: pgbench ignores it
        };
        let lower = name.to_ascii_lowercase();
        if lower == "gset" || lower == "aset" {
            if m.words.len() > 2 {
                return Err(err(m.line, in_command("too many arguments", &name)));
            }
            let prefix = m.words.get(1).cloned().unwrap_or_default();
            attach_rows(&mut commands, &raw, &lower, prefix).map_err(|e| err(m.line, e))?;
            continue;
        }
        let kind = meta_kind(&m, &name, &lower).map_err(|e| err(m.line, e))?;
        commands.push(Command::Meta(MetaCommand {
            line: m.line,
            name,
            kind,
        }));
        raw.push(Some(m.raw));
    }
    if commands.is_empty() {
        return Err(err(
            1,
            format!("empty command list for script \"{file_label}\""),
        ));
    }
    check_conditionals(&commands).map_err(|(line, m)| err(line, m))?;
    Ok(Script {
        name: file_label.to_string(),
        commands,
    })
}

fn in_command(msg: &str, name: &str) -> String {
    format!("{msg} in command \"{name}\"")
}

/// \gset and \aset belong to the SQL command just before them.
fn attach_rows(
    commands: &mut [Command],
    raw: &[Option<String>],
    which: &str,
    prefix: String,
) -> Result<(), String> {
    let must = "\\gset must follow an SQL command";
    match commands.last_mut() {
        Some(Command::Sql(s)) if s.rows == RowsWanted::None => {
            s.rows = if which == "gset" {
                RowsWanted::Gset { prefix }
            } else {
                RowsWanted::Aset { prefix }
            };
            Ok(())
        }
        // pgbench names the meta command before, but not an SQL command (it has no text yet).
        Some(_) => match raw.last().cloned().flatten() {
            Some(line) => Err(format!("{must} ({line})")),
            None => Err(must.to_string()),
        },
        None => Err(must.to_string()),
    }
}

/// pgbench's parseQuery: each `:name` becomes a parameter, quotes or not.
pub fn sql_command(line: usize, text: String) -> SqlCommand {
    let mut prepared = String::new();
    let mut params = Vec::new();
    for piece in split_variables(&text) {
        match piece {
            Piece::Text(t) => prepared.push_str(t),
            Piece::Var(name) => {
                prepared.push('?');
                params.push(name.to_string());
            }
        }
    }
    SqlCommand {
        line,
        text,
        prepared_sql: prepared,
        params,
        rows: RowsWanted::None,
    }
}

pub enum Piece<'a> {
    Text(&'a str),
    /// `:name` (the name without its colon).
    Var(&'a str),
}

/// SQL cut at its `:name` references, as pgbench's parseVariable finds them: a colon and a
/// letter, `_` or non-ASCII character, then those and digits; a run of colons (`::`) is
/// left alone.
pub fn split_variables(sql: &str) -> Vec<Piece<'_>> {
    let b = sql.as_bytes();
    let start_byte = |c: u8| c.is_ascii_alphabetic() || c == b'_' || c >= 0x80;
    let mut out = Vec::new();
    let (mut from, mut i) = (0, 0);
    while i < b.len() {
        if b[i] != b':' {
            i += 1;
            continue;
        }
        if i + 1 < b.len() && start_byte(b[i + 1]) {
            let mut j = i + 2;
            while j < b.len() && (start_byte(b[j]) || b[j].is_ascii_digit()) {
                j += 1;
            }
            out.push(Piece::Text(&sql[from..i]));
            out.push(Piece::Var(&sql[i + 1..j]));
            from = j;
            i = j;
        } else {
            while i < b.len() && b[i] == b':' {
                i += 1;
            }
        }
    }
    out.push(Piece::Text(&sql[from..]));
    out
}

fn meta_kind(m: &MetaLine, name: &str, lower: &str) -> Result<Meta, String> {
    let expr_of = |n: usize| parse_expr(m.rest(n)).map_err(|e| in_command(&e, name));
    let no_args = |kind: Meta| {
        if m.words.len() != 1 {
            Err(in_command("unexpected argument", name))
        } else {
            Ok(kind)
        }
    };
    match lower {
        "set" => {
            let Some(var) = m.words.get(1) else {
                return Err(in_command("missing argument", name));
            };
            Ok(Meta::Set {
                var: var.clone(),
                expr: expr_of(2)?,
            })
        }
        "if" => Ok(Meta::If(expr_of(1)?)),
        "elif" => Ok(Meta::Elif(expr_of(1)?)),
        "else" => no_args(Meta::Else),
        "endif" => no_args(Meta::Endif),
        "sleep" => sleep(&m.words, name),
        "shell" | "setshell" => Err(format!(
            "\\{lower} is not supported: a study file runs no shell commands"
        )),
        "startpipeline" | "endpipeline" => Err(format!("\\{lower} is not supported")),
        _ => Err(in_command("invalid command", name)),
    }
}

/// C's atoi on an already checked `[+-]digits` prefix (saturating where C overflows).
fn atoi(s: &str) -> i64 {
    let (neg, d) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let digits: String = d.chars().take_while(char::is_ascii_digit).collect();
    let v = digits.parse::<i64>().unwrap_or(i64::MAX);
    if neg {
        -v
    } else {
        v
    }
}

fn sleep(words: &[String], name: &str) -> Result<Meta, String> {
    if words.len() < 2 {
        return Err(in_command("missing argument", name));
    }
    if words.len() > 3 {
        return Err(in_command("too many arguments", name));
    }
    let arg = &words[1];
    let mut unit = words.get(2).cloned();
    let amount = if let Some(var) = arg.strip_prefix(':') {
        SleepAmount::Var(var.to_string())
    } else {
        // "10ms": the number, then the unit in the same word.
        let body = arg.strip_prefix(['+', '-']).unwrap_or(arg);
        let ndigits = body.bytes().take_while(u8::is_ascii_digit).count();
        if ndigits < body.len() {
            if words.len() == 2 && ndigits > 0 {
                unit = Some(body[ndigits..].to_string());
            } else {
                let msg = format!("invalid sleep time, must be an integer ({arg})");
                return Err(in_command(&msg, name));
            }
        }
        SleepAmount::Fixed(atoi(arg))
    };
    let unit_us = match unit.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None | Some("s") => 1_000_000,
        Some("ms") => 1_000,
        Some("us") => 1,
        Some(_) => {
            let msg = format!(
                "unrecognized time unit, must be us, ms or s ({})",
                unit.unwrap_or_default()
            );
            return Err(in_command(&msg, name));
        }
    };
    Ok(Meta::Sleep { amount, unit_us })
}

/// pgbench's CheckConditional: \if … \elif … \else … \endif nest properly.
fn check_conditionals(commands: &[Command]) -> Result<(), (usize, String)> {
    // Each open \if: its line and whether its \else was seen.
    let mut open: Vec<(usize, bool)> = Vec::new();
    for c in commands {
        let Command::Meta(m) = c else { continue };
        let line = m.line;
        match &m.kind {
            Meta::If(_) => open.push((line, false)),
            Meta::Elif(_) => match open.last() {
                None => return Err((line, "\\elif without matching \\if".into())),
                Some((_, true)) => return Err((line, "\\elif after \\else".into())),
                Some(_) => {}
            },
            Meta::Else => match open.last_mut() {
                None => return Err((line, "\\else without matching \\if".into())),
                Some((_, true)) => return Err((line, "\\else after \\else".into())),
                Some(top) => top.1 = true,
            },
            Meta::Endif if open.pop().is_none() => {
                return Err((line, "\\endif without matching \\if".into()));
            }
            _ => {}
        }
    }
    match open.last() {
        Some((line, _)) => Err((*line, "\\if without matching \\endif".into())),
        None => Ok(()),
    }
}
