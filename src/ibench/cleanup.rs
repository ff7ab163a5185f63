//! The pause between the load steps and the first query step (docs/insert-benchmark.md#cleanup-before-the-query-steps): statistics
//! refreshed, dirty pages forced out, and a wait of S seconds from the start of it all.

use crate::workloads::ibench::{schema, DATABASE};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use std::time::{Duration, Instant};

/// Flushing made eager for the pause, in the order they are set (restored in reverse): the
/// low-water mark must never be above the maximum.
const FLUSH_SETTINGS: [&str; 3] = [
    "innodb_max_dirty_pages_pct_lwm",
    "innodb_max_dirty_pages_pct",
    "innodb_idle_flush_pct",
];

/// What the cleanup did, for the results.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct CleanupReport {
    pub seconds: f64,
    pub notes: Vec<String>,
}

pub fn perform(conn: &mut mysql::Conn, clients: u32, seconds: f64) -> Result<CleanupReport> {
    let start = Instant::now();
    let mut notes = Vec::new();
    let log_bin: Option<(String, String)> =
        conn.query_first("SHOW GLOBAL VARIABLES LIKE 'log_bin'")?;
    if log_bin.is_some_and(|(_, v)| v == "ON") {
        if let Err(e) = conn.query_drop("RESET MASTER") {
            notes.push(format!("RESET MASTER failed: {e}"));
        }
    }
    for c in 0..clients as usize {
        let t = schema::table_name(c);
        let _: Vec<mysql::Row> = conn
            .query(format!("ANALYZE TABLE {DATABASE}.{t}"))
            .with_context(|| format!("ANALYZE TABLE {DATABASE}.{t}"))?;
    }
    let mut saved = Vec::new();
    for name in FLUSH_SETTINGS {
        let v: Option<(String, String)> =
            conn.query_first(format!("SHOW GLOBAL VARIABLES LIKE '{name}'"))?;
        let Some((_, old)) = v else {
            notes.push(format!("{name} does not exist on this server; not set"));
            continue;
        };
        let value = if name == "innodb_idle_flush_pct" {
            "100"
        } else {
            "1"
        };
        match conn.query_drop(format!("SET GLOBAL {name} = {value}")) {
            Ok(()) => saved.push((name, old)),
            Err(e) => notes.push(format!("SET GLOBAL {name} = {value} failed: {e}")),
        }
    }
    let until = start + Duration::from_secs_f64(seconds);
    let now = Instant::now();
    if until > now {
        std::thread::sleep(until - now);
    }
    for (name, old) in saved.iter().rev() {
        conn.query_drop(format!("SET GLOBAL {name} = {old}"))
            .with_context(|| format!("restoring {name} to {old} after the cleanup"))?;
    }
    Ok(CleanupReport {
        seconds: start.elapsed().as_secs_f64(),
        notes,
    })
}
