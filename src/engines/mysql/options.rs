//! MariaDB's and MySQL's small-machine defaults, the options that shape a datadir, and how
//! to tell whether an option took effect from the server's own `SHOW GLOBAL VARIABLES`.

use crate::server::options::as_size;
use crate::server::{Flavour, ServerOption};
use std::collections::BTreeMap;

/// Options that shape the datadir at creation; they are passed to the datadir initialisation too.
pub const INIT_KEYS: &[&str] = &[
    "innodb_log_file_size",
    "innodb_page_size",
    "innodb_data_file_path",
    "lower_case_table_names",
    "innodb_checksum_algorithm",
];

/// The sandbox's buffer pool unless a variant sets its own.
pub const DEFAULT_BUFFER_POOL: &str = "256M";

/// The sandbox's max_connections unless a variant or a study asks for more.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 100;

/// Defaults for benchmarking on a small machine (docs/study-file.md#variant):
/// data in memory, no fsync per commit, deterministic restarts.
pub fn defaults(flavour: Flavour) -> Vec<ServerOption> {
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
        // PostgreSQL never reaches here: engines::of sends it to engines::postgres.
        Flavour::MySql | Flavour::Postgres => {
            // Binlog is on by default in MySQL 8 and the X plugin would take a fixed port;
            // 5.7 has no X plugin built in: `loose_` lets it ignore the option.
            v.push(ServerOption::flag("skip_log_bin"));
            v.push(ServerOption::new("loose_mysqlx", "OFF"));
        }
    }
    v
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_options_replace_defaults() {
        let user = vec![ServerOption::parse("innodb_buffer_pool_size=1G").unwrap()];
        let m = crate::server::options::merge(defaults(Flavour::MariaDb), &user);
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
