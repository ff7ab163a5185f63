//! A cell's data regime as it runs: cached data read into the buffer pool before measuring,
//! and each cell judged by the pages it read from disk (how a study's regimes are sized:
//! crate::study::regime).

use crate::results::{
    Flag, Regime, RegimeCheck, REGIME_CACHED_MAX as CACHED_MAX, REGIME_IO_BOUND_MIN as IO_BOUND_MIN,
};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use std::collections::BTreeMap;

/// Read every table and index of `database` into the buffer pool (as the published study of
/// PS on cached and IO-bound data warmed its cached runs): a full scan of each index. Returns the seconds it took.
pub fn warm(conn: &mut mysql::Conn, database: &str) -> Result<f64> {
    let started = std::time::Instant::now();
    let indexes: Vec<(String, String)> = conn
        .exec(
            "SELECT DISTINCT TABLE_NAME, INDEX_NAME FROM information_schema.STATISTICS \
             WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, INDEX_NAME",
            (database,),
        )
        .context("listing the indexes to warm")?;
    for (table, index) in indexes {
        let sql = format!("SELECT COUNT(*) FROM `{database}`.`{table}` FORCE INDEX (`{index}`)");
        conn.query_drop(&sql)
            .with_context(|| format!("warming `{table}`.`{index}`"))?;
    }
    Ok(started.elapsed().as_secs_f64())
}

/// The regime a cell showed: pages read from disk per index lookup over its window.
pub fn check_cell(asked: Regime, delta: &BTreeMap<String, f64>) -> RegimeCheck {
    let get = |k: &str| delta.get(k).copied().unwrap_or(0.0);
    RegimeCheck {
        asked,
        disk_reads_per_lookup: get("Innodb_pages_read") / get("Handler_read_key").max(1.0),
    }
}

/// The flag of a cell outside its regime.
pub fn flag(c: RegimeCheck) -> Option<Flag> {
    match c.asked {
        Regime::IoBound if c.disk_reads_per_lookup < IO_BOUND_MIN => Some(Flag::NotIoBound),
        Regime::Cached if c.disk_reads_per_lookup >= CACHED_MAX => Some(Flag::NotCached),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_judged_by_disk_reads_per_lookup() {
        let delta = |reads: f64, lookups: f64| -> BTreeMap<String, f64> {
            [
                ("Innodb_pages_read".to_string(), reads),
                ("Handler_read_key".to_string(), lookups),
            ]
            .into_iter()
            .collect()
        };
        let io = check_cell(Regime::IoBound, &delta(970.0, 1000.0));
        assert_eq!(flag(io), None);
        let warm_as_io = check_cell(Regime::IoBound, &delta(3.0, 1000.0));
        assert_eq!(flag(warm_as_io), Some(Flag::NotIoBound));
        assert_eq!(flag(check_cell(Regime::Cached, &delta(0.0, 1000.0))), None);
        let cold_as_cached = check_cell(Regime::Cached, &delta(40.0, 1000.0));
        assert_eq!(flag(cold_as_cached), Some(Flag::NotCached));
    }
}
