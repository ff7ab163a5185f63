//! A MySQL or MariaDB option file (my.cnf) as the server reads it: the groups a server of
//! this flavour and version reads, `!include` and `!includedir`, quoted values and comments.
//! Each setting keeps the file and line it came from, for read-back and refusals.

use crate::engines::config_file::{self, FileSetting};
use crate::error::usage;
use crate::results::study::Variant;
use crate::results::Flavour;
use crate::server::{Binaries, ServerOption};
use anyhow::Result;
use std::path::{Path, PathBuf};

/// One setting of an option file.
#[derive(Clone, Debug, PartialEq)]
pub struct CnfSetting {
    /// As written, `-` and `_` alike (`innodb-buffer-pool-size`).
    pub key: String,
    pub value: Option<String>,
    /// `FILE:LINE`.
    pub at: String,
}

/// The groups a server of `flavour` at `version` (`8.0.15`, `10.11.19`) reads, lowercase.
pub fn server_groups(flavour: Flavour, version: &str) -> Vec<String> {
    let major_minor: String = version.split('.').take(2).collect::<Vec<_>>().join(".");
    let mut g = vec![
        "mysqld".to_string(),
        "server".to_string(),
        format!("mysqld-{major_minor}"),
    ];
    if flavour == Flavour::MariaDb {
        for base in ["mariadb", "mariadbd"] {
            g.push(base.to_string());
            g.push(format!("{base}-{major_minor}"));
        }
        g.push("client-server".to_string());
        g.push("galera".to_string());
    }
    g
}

/// A variant's `defaults_file` as settings for the server `bin` (before it is known, the
/// groups any MySQL-family server reads, to find the file's mistakes).
pub fn of_variant(
    v: &Variant,
    bin: Option<&Binaries>,
) -> Result<Option<(PathBuf, Vec<FileSetting>)>> {
    if v.config_file.is_some() {
        return Err(usage(format!(
            "variant '{}': config_file names a postgresql.conf; a MySQL or MariaDB variant names its my.cnf as defaults_file",
            v.name
        )));
    }
    let Some(path) = &v.defaults_file else {
        return Ok(None);
    };
    let groups = match bin {
        Some(b) => server_groups(b.flavour, &b.version),
        None => server_groups(Flavour::MariaDb, ""),
    };
    let read = read(path, &groups).map_err(|e| config_file::mistake(v, "defaults_file", &e))?;
    let settings = read
        .into_iter()
        .map(|s| FileSetting {
            option: ServerOption {
                key: s.key.replace('-', "_").to_ascii_lowercase(),
                value: s.value,
            },
            at: s.at,
        })
        .collect();
    Ok(Some((path.clone(), settings)))
}

/// The settings of `path` in `groups`, in the order the server reads them.
pub fn read(path: &Path, groups: &[String]) -> Result<Vec<CnfSetting>> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    read_into(path, groups, &mut out, &mut stack)?;
    Ok(out)
}

fn read_into(
    path: &Path,
    groups: &[String],
    out: &mut Vec<CnfSetting>,
    stack: &mut Vec<PathBuf>,
) -> Result<()> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| usage(format!("defaults_file {}: {e}", path.display())))?;
    if stack.iter().any(|p| p == path) {
        return Err(usage(format!(
            "defaults_file {}: includes itself",
            path.display()
        )));
    }
    stack.push(path.to_path_buf());
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut reading = false;
    for (i, raw) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), i + 1);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("!includedir") {
            let d = dir.join(rest.trim());
            let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
                .map_err(|e| usage(format!("{at}: !includedir {}: {e}", d.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "cnf"))
                .collect();
            files.sort();
            for f in files {
                read_into(&f, groups, out, stack)?;
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("!include") {
            read_into(&dir.join(rest.trim()), groups, out, stack)?;
            continue;
        }
        if let Some(group) = line.strip_prefix('[') {
            let Some(name) = group.split(']').next().filter(|_| group.contains(']')) else {
                return Err(usage(format!("{at}: a group header without ']': {line}")));
            };
            reading = groups.iter().any(|g| g.eq_ignore_ascii_case(name.trim()));
            continue;
        }
        if !reading {
            continue;
        }
        out.push(setting(line, at)?);
    }
    stack.pop();
    Ok(())
}

/// `key`, `key = value`, `key="quoted # value"`, with a `#` comment after a value.
fn setting(line: &str, at: String) -> Result<CnfSetting> {
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), Some(value_of(v.trim(), &at)?)),
        None => (strip_comment(line).trim(), None),
    };
    let key = key.trim_start_matches("--");
    if key.is_empty() {
        return Err(usage(format!("{at}: a setting without a name: {line}")));
    }
    Ok(CnfSetting {
        key: key.to_string(),
        value,
        at,
    })
}

fn strip_comment(s: &str) -> &str {
    s.split_once('#').map_or(s, |(a, _)| a)
}

/// A value: quoted with its escapes, or bare up to a comment.
fn value_of(v: &str, at: &str) -> Result<String> {
    let Some(q) = v.chars().next().filter(|c| *c == '"' || *c == '\'') else {
        return Ok(strip_comment(v).trim().to_string());
    };
    let mut out = String::new();
    let mut chars = v[1..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('s') => out.push(' '),
                Some(o) => out.push(o),
                None => break,
            },
            c if c == q => return Ok(out),
            c => out.push(c),
        }
    }
    Err(usage(format!(
        "{at}: a quoted value without its closing {q}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn reads_the_servers_groups_with_includes_quotes_and_comments() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::create_dir(d.join("conf.d")).unwrap();
        write(d, "conf.d/b.cnf", "[mysqld]\nmax_connections = 50\n");
        write(d, "conf.d/a.cnf", "[mysqld]\nsort_buffer_size=1M\n");
        write(d, "conf.d/ignored.txt", "[mysqld]\nnope=1\n");
        write(
            d,
            "extra.cnf",
            "[server]\ninnodb-log-file-size = 64M # big\n",
        );
        let main = write(
            d,
            "my.cnf",
            "# settings\n[client]\nport=1\n[mysqld]\nskip-name-resolve\n\
             innodb_buffer_pool_size = 128M\nlog_bin_basename = \"/a b#c\"\n\
             [mysqld-8.0]\nuserstat = 1\n[mariadb]\nthread_handling=pool-of-threads\n\
             !include extra.cnf\n!includedir conf.d\n",
        );
        let mysql = read(&main, &server_groups(Flavour::MySql, "8.0.15")).unwrap();
        let keys: Vec<(&str, Option<&str>)> = mysql
            .iter()
            .map(|s| (s.key.as_str(), s.value.as_deref()))
            .collect();
        assert_eq!(
            keys,
            [
                ("skip-name-resolve", None),
                ("innodb_buffer_pool_size", Some("128M")),
                ("log_bin_basename", Some("/a b#c")),
                ("userstat", Some("1")),
                ("innodb-log-file-size", Some("64M")),
                ("sort_buffer_size", Some("1M")),
                ("max_connections", Some("50")),
            ]
        );
        assert!(mysql[0].at.ends_with("my.cnf:5"), "{:?}", mysql[0]);
        assert!(mysql[4].at.ends_with("extra.cnf:2"), "{:?}", mysql[4]);
        let maria = read(&main, &server_groups(Flavour::MariaDb, "10.11.19")).unwrap();
        assert!(maria.iter().any(|s| s.key == "thread_handling"));
        assert!(
            !maria.iter().any(|s| s.key == "userstat"),
            "[mysqld-8.0] is 8.0's"
        );
    }

    #[test]
    fn mistakes_name_the_file_and_line() {
        let tmp = tempfile::tempdir().unwrap();
        let bad = write(tmp.path(), "bad.cnf", "[mysqld]\nx = \"open\n");
        let e = read(&bad, &server_groups(Flavour::MySql, "8.0.15")).unwrap_err();
        assert!(e.to_string().contains("bad.cnf:2"), "{e}");
        let looped = write(tmp.path(), "loop.cnf", "!include loop.cnf\n");
        let e = read(&looped, &[]).unwrap_err();
        assert!(e.to_string().contains("includes itself"), "{e}");
        let e = read(&tmp.path().join("none.cnf"), &[]).unwrap_err();
        assert!(crate::error::is_usage(&e), "{e}");
    }
}
