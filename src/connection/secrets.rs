//! Passwords: read from an option file so that they stay off command lines and process
//! titles, and hidden in any command line that is recorded.

use crate::error::usage;
use anyhow::{Context, Result};

/// Read a password from an option file (`password=...` under any group, as in my.cnf), a
/// libpq password file of one entry (`host:port:db:user:password`, as a PostgreSQL sandbox's
/// `pgpass`), or a file holding only the password, so it need not appear on the command
/// line or in the process title.
pub fn password_from_file(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading password file {}", path.display()))
        .map_err(|e| usage(format!("{e:#}")))?;
    for line in text.lines() {
        let line = line.trim();
        if let Some((k, v)) = line.split_once('=') {
            if k.trim() == "password" {
                return Ok(v.trim().trim_matches(|c| c == '"' || c == '\'').to_string());
            }
        }
    }
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    if let [only] = lines[..] {
        if !only.contains('=') {
            let fields: Vec<&str> = only.split(':').collect();
            return Ok(match fields[..] {
                [_, _, _, _, pw] => pw.to_string(),
                _ => only.to_string(),
            });
        }
    }
    Err(usage(format!("no `password=` line in {}", path.display())))
}

/// Replace the value of `--mysql-password` or `--pgsql-password` (`=` or separate
/// argument) with `***`.
pub fn redact_password(args: &[String]) -> Vec<String> {
    const OPTS: &[&str] = &[
        "--mysql-password",
        "--mysql_password",
        "--pgsql-password",
        "--pgsql_password",
    ];
    let mut out = Vec::with_capacity(args.len());
    let mut hide_next = false;
    for a in args {
        if hide_next {
            out.push("***".to_string());
            hide_next = false;
        } else if OPTS.contains(&a.as_str()) {
            out.push(a.clone());
            hide_next = true;
        } else if let Some((k, _)) = a.split_once('=').filter(|(k, _)| OPTS.contains(k)) {
            out.push(format!("{k}=***"));
        } else {
            out.push(a.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_option_files() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("my.cnf");
        std::fs::write(&p, "[client]\nuser=x\npassword = \"s3cret\"\n").unwrap();
        assert_eq!(password_from_file(&p).unwrap(), "s3cret");
        std::fs::write(&p, "[client]\nuser=x\n").unwrap();
        assert!(crate::error::is_usage(&password_from_file(&p).unwrap_err()));
        // A sandbox's pgpass: a comment, then host:port:db:user:password.
        std::fs::write(&p, "# psbench sandbox\n127.0.0.1:5432:*:postgres:pw9\n").unwrap();
        assert_eq!(password_from_file(&p).unwrap(), "pw9");
        std::fs::write(&p, "bare-password\n").unwrap();
        assert_eq!(password_from_file(&p).unwrap(), "bare-password");
    }

    #[test]
    fn passwords_are_redacted_in_both_spellings() {
        let args: Vec<String> = [
            "psbench",
            "--mysql-password",
            "s1",
            "--mysql-password=s2",
            "--mysql_password=s3",
            "--x=y",
            "--pgsql-password=s4",
            "--pgsql-password",
            "s5",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let r = redact_password(&args).join(" ");
        assert_eq!(
            r,
            "psbench --mysql-password *** --mysql-password=*** --mysql_password=*** --x=y \
             --pgsql-password=*** --pgsql-password ***"
        );
    }
}
