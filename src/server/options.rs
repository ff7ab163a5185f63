//! Server options as KEY[=VALUE], the small-machine defaults, and how to tell whether an
//! option took effect from the server's own `SHOW GLOBAL VARIABLES`.

use crate::error::usage;
pub use crate::results::provenance::ServerOption;
use anyhow::Result;
use std::collections::BTreeMap;

use super::basedir::Flavour;

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

/// Options that shape the datadir at creation; they are passed to the datadir initialisation too.
pub const INIT_KEYS: &[&str] = &[
    "innodb_log_file_size",
    "innodb_page_size",
    "innodb_data_file_path",
    "lower_case_table_names",
    "innodb_checksum_algorithm",
];

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

    fn flag(key: &str) -> Self {
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
    fn expected(&self) -> (String, String) {
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

/// The sandbox's buffer pool unless a variant sets its own.
pub const DEFAULT_BUFFER_POOL: &str = "256M";

/// The sandbox's max_connections unless a variant or a study asks for more.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 100;

/// PostgreSQL's shared buffers unless a variant sets its own (as the MySQL-family buffer pool).
pub const DEFAULT_SHARED_BUFFERS: &str = "256MB";

/// Defaults for benchmarking on a small machine (docs/study-file.md#variant):
/// data in memory, no fsync per commit, deterministic restarts.
pub fn defaults(flavour: Flavour) -> Vec<ServerOption> {
    if flavour == Flavour::Postgres {
        // Commits do not wait for the WAL flush (as innodb_flush_log_at_trx_commit=2).
        return vec![
            ServerOption::new("shared_buffers", DEFAULT_SHARED_BUFFERS),
            ServerOption::new("synchronous_commit", "off"),
            ServerOption::new("max_connections", &DEFAULT_MAX_CONNECTIONS.to_string()),
        ];
    }
    let mut v = vec![
        ServerOption::new("innodb_buffer_pool_size", DEFAULT_BUFFER_POOL),
        ServerOption::new("innodb_flush_log_at_trx_commit", "2"),
        ServerOption::new("max_connections", &DEFAULT_MAX_CONNECTIONS.to_string()),
        ServerOption::flag("skip_name_resolve"),
        ServerOption::new("innodb_buffer_pool_load_at_startup", "OFF"),
        ServerOption::new("innodb_buffer_pool_dump_at_shutdown", "OFF"),
    ];
    match flavour {
        Flavour::MariaDb => {
            v.push(ServerOption::new("innodb_log_file_size", "64M"));
        }
        Flavour::MySql | Flavour::Postgres => {
            // Binlog is on by default in MySQL 8 and the X plugin would take a fixed port;
            // 5.7 has no X plugin built in: `loose_` lets it ignore the option.
            v.push(ServerOption::flag("skip_log_bin"));
            v.push(ServerOption::new("loose_mysqlx", "OFF"));
        }
    }
    v
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

/// Options whose effective value differs from the one asked for: (option, what the server reports).
/// An option naming a plugin rather than a variable (`mysqlx=OFF`) is judged by the plugin's
/// status in `plugins` (name → `information_schema.PLUGINS.PLUGIN_STATUS`). Options that name
/// neither (plugin-load, performance-schema-instrument, …) are not judged here.
pub fn not_applied(
    options: &[ServerOption],
    variables: &BTreeMap<String, String>,
    plugins: &BTreeMap<String, String>,
) -> Vec<(ServerOption, String)> {
    let mut bad = Vec::new();
    for opt in options {
        let (var, want) = opt.expected();
        if var == "log_bin" && as_bool(&want).is_none() {
            // log_bin=NAME names the binlog: it reads back as log_bin=ON and a basename.
            let base = variables.get("log_bin_basename").map(String::as_str);
            let named = base.and_then(|b| std::path::Path::new(b).file_name());
            let on = variables.get("log_bin").and_then(|v| as_bool(v)) == Some(true);
            if !on || named.and_then(|n| n.to_str()) != Some(want.as_str()) {
                let shown = format!(
                    "log_bin={}, log_bin_basename={}",
                    variables.get("log_bin").map_or("?", String::as_str),
                    base.unwrap_or("?")
                );
                bad.push((opt.clone(), shown));
            }
            continue;
        }
        if let Some(actual) = variables.get(&var) {
            if !same_value(&want, actual) {
                bad.push((opt.clone(), actual.clone()));
            }
        } else if let Some(status) = plugins.get(&var) {
            let active = status.eq_ignore_ascii_case("ACTIVE");
            let wanted = match want.to_ascii_uppercase().as_str() {
                "OFF" | "0" => Some(false),
                "ON" | "1" | "FORCE" | "FORCE_PLUS_PERMANENT" => Some(true),
                _ => None,
            };
            if wanted.is_some_and(|w| w != active) {
                bad.push((opt.clone(), format!("plugin {status}")));
            }
        }
    }
    bad
}

fn same_value(want: &str, actual: &str) -> bool {
    let w = want.trim_matches(|c| c == '\'' || c == '"');
    if w.eq_ignore_ascii_case(actual) {
        return true;
    }
    if let (Some(a), Some(b)) = (as_bool(w), as_bool(actual)) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (as_size(w), as_size(actual)) {
        return a == b;
    }
    false
}

fn as_bool(s: &str) -> Option<bool> {
    match s.to_ascii_uppercase().as_str() {
        "ON" | "1" | "TRUE" | "YES" => Some(true),
        "OFF" | "0" | "FALSE" | "NO" => Some(false),
        _ => None,
    }
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
        let user = vec![ServerOption::parse("innodb_buffer_pool_size=1G").unwrap()];
        let m = merge(defaults(Flavour::MariaDb), &user);
        let bp: Vec<_> = m
            .iter()
            .filter(|o| o.key == "innodb_buffer_pool_size")
            .collect();
        assert_eq!(bp.len(), 1);
        assert_eq!(bp[0].value.as_deref(), Some("1G"));
    }

    #[test]
    fn judges_effective_values() {
        let vars: BTreeMap<String, String> = [
            ("performance_schema", "ON"),
            ("innodb_buffer_pool_size", "268435456"),
            ("skip_name_resolve", "ON"),
            ("log_bin", "OFF"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let ok = [
            "performance_schema=1",
            "innodb_buffer_pool_size=256M",
            "skip_name_resolve",
            "skip-log-bin",
        ]
        .map(|s| ServerOption::parse(s).unwrap());
        let none = BTreeMap::new();
        assert!(not_applied(&ok, &vars, &none).is_empty());
        let bad = [ServerOption::parse("performance_schema=OFF").unwrap()];
        assert_eq!(not_applied(&bad, &vars, &none).len(), 1);
        // A plugin option is judged by the plugin's status, `loose_` or not.
        let plugins: BTreeMap<String, String> = [("mysqlx".to_string(), "ACTIVE".to_string())]
            .into_iter()
            .collect();
        let off = [ServerOption::parse("loose_mysqlx=OFF").unwrap()];
        assert_eq!(
            not_applied(&off, &vars, &plugins),
            [(off[0].clone(), "plugin ACTIVE".to_string())]
        );
        let disabled: BTreeMap<String, String> = [("mysqlx".to_string(), "DISABLED".to_string())]
            .into_iter()
            .collect();
        assert!(not_applied(&off, &vars, &disabled).is_empty());
        assert!(not_applied(&off, &vars, &none).is_empty());
    }

    #[test]
    fn log_bin_with_a_name_reads_back_as_on_and_a_basename() {
        let vars = |on: &str, base: &str| -> BTreeMap<String, String> {
            [("log_bin", on), ("log_bin_basename", base)]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let named = [ServerOption::parse("log_bin=binlog").unwrap()];
        let none = BTreeMap::new();
        assert!(not_applied(&named, &vars("ON", "/s/data/binlog"), &none).is_empty());
        assert_eq!(
            not_applied(&named, &vars("OFF", ""), &none)[0].1,
            "log_bin=OFF, log_bin_basename="
        );
        assert_eq!(
            not_applied(&named, &vars("ON", "/s/data/mysql-bin"), &none).len(),
            1
        );
        let bare = [ServerOption::parse("log_bin").unwrap()];
        assert!(not_applied(&bare, &vars("ON", "/s/data/x-bin"), &none).is_empty());
    }
}
