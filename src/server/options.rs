//! Server options as KEY[=VALUE], and how a variant's options override defaults. Each
//! engine's defaults, and how it tells whether an option took effect, are in engines/.

use crate::error::usage;
pub use crate::results::provenance::ServerOption;
use anyhow::Result;

/// Options the sandbox sets itself; a variant may not move them.
const RESERVED: &[&str] = &[
    "datadir",
    "port",
    "socket",
    "bind_address",
    "pid_file",
    "log_error",
    "basedir",
    "user",
    "no_defaults",
    "defaults_file",
    "defaults_extra_file",
    "tmpdir",
];

/// Whether `key` (a base key) is one the sandbox sets itself.
pub fn is_reserved(key: &str) -> bool {
    RESERVED.contains(&key)
}

impl ServerOption {
    /// Parse `KEY` or `KEY=VALUE`; the key is normalised to underscores.
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        let (k, v) = match s.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
            None => (s, None),
        };
        let k = k.trim_start_matches("--");
        if k.is_empty()
            || !k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            return Err(usage(format!(
                "bad server option '{s}': expected KEY=VALUE or KEY, e.g. performance_schema=ON"
            )));
        }
        let opt = ServerOption {
            key: k.replace('-', "_").to_ascii_lowercase(),
            value: v,
        };
        if RESERVED.contains(&opt.base_key()) {
            return Err(usage(format!(
                "server option '{}' is set by the sandbox itself and cannot be overridden",
                opt.key
            )));
        }
        Ok(opt)
    }

    pub fn new(key: &str, value: &str) -> Self {
        ServerOption {
            key: key.replace('-', "_"),
            value: Some(value.to_string()),
        }
    }

    pub fn flag(key: &str) -> Self {
        ServerOption {
            key: key.replace('-', "_"),
            value: None,
        }
    }

    /// The key without `loose_`, `skip_`, `enable_`, `disable_`: what a later option overrides.
    pub fn base_key(&self) -> &str {
        let k = self.key.strip_prefix("loose_").unwrap_or(&self.key);
        ["skip_", "enable_", "disable_"]
            .iter()
            .find_map(|p| k.strip_prefix(p))
            .unwrap_or(k)
    }

    /// The command-line argument for the server (underscores, so that the server's own
    /// messages name the option as the user wrote it).
    pub fn to_arg(&self) -> String {
        let k = &self.key;
        match &self.value {
            Some(v) => format!("--{k}={v}"),
            None => format!("--{k}"),
        }
    }

    /// What `SHOW GLOBAL VARIABLES` should show for this option, when it names a variable.
    pub fn expected(&self) -> (String, String) {
        let k = self.key.strip_prefix("loose_").unwrap_or(&self.key);
        let base = self.base_key().to_string();
        if k.starts_with("skip_") || k.starts_with("disable_") {
            return (base, "OFF".into());
        }
        (base, self.value.clone().unwrap_or_else(|| "ON".into()))
    }

    pub fn display(&self) -> String {
        match &self.value {
            Some(v) => format!("{}={}", self.key, v),
            None => self.key.clone(),
        }
    }
}

/// Defaults first, then the user's options; a user option replaces a default with the same base key.
pub fn merge(defaults: Vec<ServerOption>, user: &[ServerOption]) -> Vec<ServerOption> {
    let mut out: Vec<ServerOption> = defaults
        .into_iter()
        .filter(|d| !user.iter().any(|u| u.base_key() == d.base_key()))
        .collect();
    out.extend(user.iter().cloned());
    out
}

/// `256M` → 268435456; plain numbers as they are.
pub fn as_size(s: &str) -> Option<u128> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()?.to_ascii_uppercase() {
        'K' => (&s[..s.len() - 1], 1u128 << 10),
        'M' => (&s[..s.len() - 1], 1 << 20),
        'G' => (&s[..s.len() - 1], 1 << 30),
        'T' => (&s[..s.len() - 1], 1 << 40),
        _ => (s, 1),
    };
    num.parse::<u128>().ok().map(|n| n * mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_normalises() {
        let o = ServerOption::parse("performance-schema=ON").unwrap();
        assert_eq!(o.key, "performance_schema");
        assert_eq!(o.to_arg(), "--performance_schema=ON");
        let f = ServerOption::parse("skip-name-resolve").unwrap();
        assert_eq!(f.value, None);
        assert_eq!(f.base_key(), "name_resolve");
    }

    #[test]
    fn rejects_reserved_and_malformed() {
        assert!(crate::error::is_usage(
            &ServerOption::parse("port=3306").unwrap_err()
        ));
        assert!(ServerOption::parse("=1").is_err());
        assert!(ServerOption::parse("a b=1").is_err());
    }

    #[test]
    fn user_options_replace_defaults() {
        let defaults = vec![ServerOption::new("innodb_buffer_pool_size", "256M")];
        let user = vec![ServerOption::parse("innodb_buffer_pool_size=1G").unwrap()];
        let m = merge(defaults, &user);
        assert_eq!(m, user);
    }
}
