//! A variant's own configuration file (`defaults_file`, a my.cnf; `config_file`, a
//! postgresql.conf) as server options: each engine reads its file as its server would, and
//! here the settings become options the sandbox passes and reads back. The sandbox's own
//! settings and any path on the host stay the sandbox's; a line set again later, or by the
//! variant's own options, gives way; each line that did not set what it says is listed with
//! why. A setting the server refuses is named by its file and line.

use super::Engine;
use crate::error::{one_line, usage};
use crate::results::study::Variant;
use crate::results::ConfigFileRecord;
use crate::server::{Binaries, ServerOption};
use anyhow::Result;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// One setting as its file wrote it (key normalised as an option's).
#[derive(Clone, Debug, PartialEq)]
pub struct FileSetting {
    pub option: ServerOption,
    /// `FILE:LINE`.
    pub at: String,
}

/// A variant's file, read for one server.
#[derive(Clone, Debug)]
pub struct ConfigFile {
    pub path: PathBuf,
    /// The settings passed, in the file's order.
    pub settings: Vec<FileSetting>,
    /// `FILE:LINE key: why`, for the lines that did not set what they say.
    pub overridden: Vec<String>,
}

/// Options that may be given more than once, each adding to the last.
const REPEATABLE: &[&str] = &["performance_schema_instrument", "plugin_load_add"];

/// The variant's file on `bin` (its server's groups), or `None` when it names none. `own`
/// are the options that win over the file's: the variant's (its scenario's and preset's
/// too) and those the run adds.
pub fn read(
    e: &dyn Engine,
    v: &Variant,
    bin: Option<&Binaries>,
    own: &[ServerOption],
) -> Result<Option<ConfigFile>> {
    let Some((path, raw)) = e.config_settings(v, bin)? else {
        return Ok(None);
    };
    let mut settings: Vec<FileSetting> = Vec::new();
    let mut overridden = Vec::new();
    for (i, s) in raw.iter().enumerate() {
        let key = s.option.base_key();
        let why =
            if e.launcher().reserved().contains(&key) || crate::server::options::is_reserved(key) {
                Some("the sandbox's own".to_string())
            } else if s.option.value.as_deref().is_some_and(is_host_path) {
                Some("a path on this host: the sandbox keeps its files in its own directory".into())
            } else if let Some(own) = own.iter().find(|o| o.base_key() == key) {
                Some(format!("overridden by {}", own.display()))
            } else if REPEATABLE.contains(&key) {
                None
            } else {
                raw[i + 1..]
                    .iter()
                    .rfind(|later| later.option.base_key() == key)
                    .map(|later| format!("{} sets it again", later.at))
            };
        match why {
            Some(why) => overridden.push(format!("{} {}: {why}", s.at, s.option.key)),
            None => settings.push(s.clone()),
        }
    }
    Ok(Some(ConfigFile {
        path,
        settings,
        overridden,
    }))
}

/// A file's reading error as variant `v`'s mistake, `key` first so that the study file's
/// error points at its line.
pub fn mistake(v: &Variant, key: &str, e: &anyhow::Error) -> anyhow::Error {
    let said = one_line(e);
    let said = match said.starts_with(key) {
        true => said,
        false => format!("{key} {said}"),
    };
    usage(format!("variant '{}': {said}", v.name))
}

/// An absolute path, quoted or not: the host's server's files, never the sandbox's.
fn is_host_path(value: &str) -> bool {
    value
        .trim_matches(|c| c == '\'' || c == '"')
        .starts_with('/')
}

impl ConfigFile {
    pub fn options(&self) -> Vec<ServerOption> {
        self.settings.iter().map(|s| s.option.clone()).collect()
    }

    pub fn record(&self) -> ConfigFileRecord {
        let path = self.path.display().to_string();
        ConfigFileRecord {
            sha256: std::fs::read(&self.path)
                .map(|b| format!("{:x}", Sha256::digest(b)))
                .unwrap_or_default(),
            path,
            settings: self.settings.len() as u32,
            overridden: self.overridden.clone(),
        }
    }

    /// A start that failed on one of the file's settings, said as a mistake at its line
    /// (exit 2); any other failure as it was.
    pub fn explain(&self, e: anyhow::Error) -> anyhow::Error {
        let said = one_line(&e);
        let names = |s: &FileSetting| {
            let (k, shown) = (&s.option.key, s.option.display());
            // As MySQL, MariaDB and PostgreSQL quote an option, and as a read-back names it.
            [
                format!("'{k}="),
                format!("'{k}'"),
                format!("'--{k}'"),
                format!("'--{k}="),
                format!("\"{k}\""),
                format!(": {shown} ("),
                format!(", {shown} ("),
            ]
            .iter()
            .any(|p| said.contains(p))
        };
        match self.settings.iter().find(|s| names(s)) {
            Some(s) => usage(format!(
                "{}: the server refused {}: {said}",
                s.at,
                s.option.display()
            )),
            None => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(key: &str, value: &str, line: u32) -> FileSetting {
        FileSetting {
            option: ServerOption::new(key, value),
            at: format!("a.cnf:{line}"),
        }
    }

    fn file(settings: Vec<FileSetting>) -> ConfigFile {
        ConfigFile {
            path: "a.cnf".into(),
            settings,
            overridden: Vec::new(),
        }
    }

    #[test]
    fn a_refusal_naming_a_setting_is_a_mistake_at_its_line() {
        let f = file(vec![s("max_connections", "77", 2), s("no_such", "1", 3)]);
        let e = f.explain(anyhow::anyhow!(
            "sandbox 'x': the server rejected option 'no_such=1': [ERROR] unknown variable 'no_such=1'"
        ));
        assert!(crate::error::is_usage(&e));
        assert!(
            one_line(&e).starts_with("a.cnf:3: the server refused no_such=1"),
            "{e}"
        );
        let other = f.explain(anyhow::anyhow!(
            "sandbox 'x': server exited during start-up"
        ));
        assert!(!crate::error::is_usage(&other), "{other}");
    }

    #[test]
    fn host_paths_are_recognised_quoted_or_not() {
        assert!(is_host_path("/var/lib/mysql"));
        assert!(is_host_path("'/run/postgresql'"));
        assert!(!is_host_path("mysql-bin"));
        assert!(!is_host_path("8MB"));
    }
}
