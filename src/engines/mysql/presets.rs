//! Settings presets a variant names (`settings = "durable"`): a group of server options as a
//! published study ran them, expressed per server flavour, applied after the sandbox's
//! defaults and before the variant's own options.

use crate::error::usage;
use crate::server::{Flavour, ServerOption};
use anyhow::Result;
use std::collections::BTreeMap;

pub const NAMES: &[&str] = &["durable"];

/// The options of preset `name` on a server of `flavour`.
pub fn options(name: &str, flavour: Flavour) -> Result<Vec<ServerOption>> {
    match name {
        // The durability of "MySQL 8, MySQL 5.7 and Percona Server for MySQL performance compared": the binlog synced at every commit, the redo log flushed at
        // every commit, doublewrite and page checksums on. MySQL 5.7 will not start a binlog
        // without a server_id; 5.7 alone still has `innodb_checksums` (others ignore `loose_`).
        "durable" => {
            let mut v = vec![
                ServerOption::new("log_bin", "binlog"),
                ServerOption::new("sync_binlog", "1"),
                ServerOption::new("innodb_flush_log_at_trx_commit", "1"),
                ServerOption::new("innodb_doublewrite", "ON"),
                ServerOption::new("server_id", "1"),
            ];
            if flavour == Flavour::MySql {
                v.push(ServerOption::new("loose_innodb_checksums", "ON"));
            }
            Ok(v)
        }
        other => Err(usage(format!(
            "settings preset '{other}' is unknown{} (known: {})",
            crate::error::suggestion(other, NAMES.iter().copied()),
            NAMES.join(", ")
        ))),
    }
}

/// Whether preset `name` exists (a usage error naming the known ones if not).
pub fn check(name: &str) -> Result<()> {
    options(name, Flavour::MariaDb).map(|_| ())
}

/// What a preset needs beyond its options' own read-back: page checksums must be on, whatever
/// algorithm the server defaults to (crc32 on MySQL, full_crc32 on MariaDB).
pub fn not_applied(name: &str, variables: &BTreeMap<String, String>) -> Vec<String> {
    let mut bad = Vec::new();
    if name == "durable" {
        if let Some(a) = variables.get("innodb_checksum_algorithm") {
            if a.to_ascii_lowercase().ends_with("none") {
                bad.push(format!(
                    "innodb_checksum_algorithm is {a}: page checksums are off"
                ));
            }
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durable_per_flavour_and_unknown_names() {
        let maria: Vec<String> = options("durable", Flavour::MariaDb)
            .unwrap()
            .iter()
            .map(|o| o.display())
            .collect();
        assert!(maria.contains(&"log_bin=binlog".to_string()));
        assert!(maria.contains(&"sync_binlog=1".to_string()));
        assert!(!maria.iter().any(|o| o.contains("innodb_checksums")));
        let mysql = options("durable", Flavour::MySql).unwrap();
        assert!(mysql.iter().any(|o| o.key == "loose_innodb_checksums"));
        let e = options("fast", Flavour::MySql).unwrap_err();
        assert!(crate::error::is_usage(&e) && e.to_string().contains("durable"));
        let vars: BTreeMap<String, String> =
            [("innodb_checksum_algorithm".to_string(), "none".to_string())].into();
        assert_eq!(not_applied("durable", &vars).len(), 1);
    }
}
