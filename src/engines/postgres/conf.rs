//! A postgresql.conf as PostgreSQL reads it: `name = value` or `name value`, quoted values,
//! `#` comments, and `include`, `include_if_exists` and `include_dir` relative to the file
//! that names them. Each setting keeps its file and line.

use crate::engines::config_file::{self, FileSetting};
use crate::error::usage;
use crate::results::study::Variant;
use crate::server::ServerOption;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// One setting of a configuration file.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfSetting {
    pub key: String,
    pub value: String,
    /// `FILE:LINE`.
    pub at: String,
}

/// A variant's `config_file` as settings.
pub fn of_variant(v: &Variant) -> Result<Option<(PathBuf, Vec<FileSetting>)>> {
    if v.defaults_file.is_some() {
        return Err(usage(format!(
            "variant '{}': defaults_file names a my.cnf; a PostgreSQL variant names its postgresql.conf as config_file",
            v.name
        )));
    }
    let Some(path) = &v.config_file else {
        return Ok(None);
    };
    let read = read(path).map_err(|e| config_file::mistake(v, "config_file", &e))?;
    let settings = read
        .into_iter()
        .map(|s| FileSetting {
            option: ServerOption {
                key: s.key,
                value: Some(s.value),
            },
            at: s.at,
        })
        .collect();
    Ok(Some((path.clone(), settings)))
}

/// The settings of `path` in the order PostgreSQL reads them (a later one wins).
pub fn read(path: &Path) -> Result<Vec<ConfSetting>> {
    let mut out = Vec::new();
    read_into(path, true, &mut out, &mut Vec::new())?;
    Ok(out)
}

fn read_into(
    path: &Path,
    required: bool,
    out: &mut Vec<ConfSetting>,
    stack: &mut Vec<PathBuf>,
) -> Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(_) if !required => return Ok(()),
        Err(e) => return Err(usage(format!("config_file {}: {e}", path.display()))),
    };
    if stack.iter().any(|p| p == path) {
        return Err(usage(format!(
            "config_file {}: includes itself",
            path.display()
        )));
    }
    stack.push(path.to_path_buf());
    let dir = path.parent().unwrap_or(Path::new("."));
    for (i, raw) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), i + 1);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line
            .split_once(|c: char| c == '=' || c.is_whitespace())
            .map_or((line, ""), |(k, r)| (k, r));
        let rest = rest.trim_start().trim_start_matches('=').trim_start();
        let value = value_of(rest, &at)?;
        let key = key.trim().to_ascii_lowercase();
        if key.is_empty() || value.is_none() {
            return Err(usage(format!("{at}: expected NAME = VALUE: {line}")));
        }
        let value = value.unwrap_or_default();
        match key.as_str() {
            "include" => read_into(&dir.join(&value), true, out, stack)?,
            "include_if_exists" => read_into(&dir.join(&value), false, out, stack)?,
            "include_dir" => {
                let d = dir.join(&value);
                let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
                    .map_err(|e| usage(format!("{at}: include_dir {}: {e}", d.display())))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.extension().is_some_and(|x| x == "conf")
                            && !p
                                .file_name()
                                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                    })
                    .collect();
                files.sort();
                for f in files {
                    read_into(&f, true, out, stack)?;
                }
            }
            _ => out.push(ConfSetting { key, value, at }),
        }
    }
    stack.pop();
    Ok(())
}

/// A value: single-quoted (`''` and backslash escapes) or bare up to a comment; `None`
/// when there is none.
fn value_of(v: &str, at: &str) -> Result<Option<String>> {
    let Some(body) = v.strip_prefix('\'') else {
        let bare = v.split_once('#').map_or(v, |(a, _)| a).trim();
        return Ok((!bare.is_empty()).then(|| bare.to_string()));
    };
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' if chars.peek() == Some(&'\'') => {
                chars.next();
                out.push('\'');
            }
            '\'' => return Ok(Some(out)),
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(match n {
                        'n' => '\n',
                        't' => '\t',
                        o => o,
                    });
                }
            }
            c => out.push(c),
        }
    }
    Err(usage(format!("{at}: a quoted value without its closing '")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_settings_and_includes_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::create_dir(d.join("conf.d")).unwrap();
        std::fs::write(d.join("conf.d/10-a.conf"), "work_mem = '8MB'\n").unwrap();
        std::fs::write(d.join("conf.d/.hidden.conf"), "nope = 1\n").unwrap();
        std::fs::write(d.join("more.conf"), "shared_buffers 256MB # pool\n").unwrap();
        let main = d.join("postgresql.conf");
        std::fs::write(
            &main,
            "# mine\nmax_connections = 50\nsearch_path = '\"$user\", public'\n\
             include 'more.conf'\ninclude_if_exists 'absent.conf'\ninclude_dir 'conf.d'\n\
             application_name = 'it''s'\n",
        )
        .unwrap();
        let s = read(&main).unwrap();
        let pairs: Vec<(&str, &str)> = s
            .iter()
            .map(|c| (c.key.as_str(), c.value.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("max_connections", "50"),
                ("search_path", "\"$user\", public"),
                ("shared_buffers", "256MB"),
                ("work_mem", "8MB"),
                ("application_name", "it's"),
            ]
        );
        assert!(s[2].at.ends_with("more.conf:1"), "{:?}", s[2]);
    }

    #[test]
    fn mistakes_name_the_file_and_line() {
        let tmp = tempfile::tempdir().unwrap();
        let bad = tmp.path().join("bad.conf");
        std::fs::write(&bad, "work_mem = 4MB\nlonely\n").unwrap();
        let e = read(&bad).unwrap_err();
        assert!(e.to_string().contains("bad.conf:2"), "{e}");
        std::fs::write(&bad, "include 'gone.conf'\n").unwrap();
        assert!(crate::error::is_usage(&read(&bad).unwrap_err()));
    }
}
