//! The pause between the load steps and the first query step (docs/insert-benchmark.md#cleanup-before-the-query-steps),
//! as the original does it on each engine, then a wait of S seconds from the start of it all.
//! MySQL: statistics refreshed and dirty pages forced out. PostgreSQL: every table vacuumed
//! and analyzed in parallel, then a checkpoint.

use crate::connection::{AdminConn, Endpoint};
use crate::workloads::ibench::{schema, DATABASE};
use anyhow::{anyhow, Context, Result};
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

/// The cleanup for the tables of `clients` clients, lasting at least `seconds`.
pub fn perform(admin: &Endpoint, clients: u32, seconds: f64) -> Result<CleanupReport> {
    let start = Instant::now();
    let mut notes = Vec::new();
    // The original's two procedures follow what the server needs: where deleted rows wait
    // for a client's VACUUM, that and a checkpoint; elsewhere fresh statistics and eager
    // flushing for the length of the pause.
    let restore = if admin.dialect().vacuums_tables() {
        postgres_cleanup(admin, clients, &mut notes)?;
        None
    } else {
        let mut conn = admin.connect_without_db()?;
        let saved = mysql_cleanup(&mut conn, clients, &mut notes)?;
        Some((conn, saved))
    };
    let until = start + Duration::from_secs_f64(seconds);
    let now = Instant::now();
    if until > now {
        std::thread::sleep(until - now);
    }
    if let Some((mut conn, saved)) = restore {
        for (name, old) in saved.iter().rev() {
            conn.query_drop(format!("SET GLOBAL {name} = {old}"))
                .with_context(|| format!("restoring {name} to {old} after the cleanup"))?;
        }
    }
    Ok(CleanupReport {
        seconds: start.elapsed().as_secs_f64(),
        notes,
    })
}

/// Binary logs reset, every table analyzed, flushing made eager; returns the settings to
/// restore after the wait.
fn mysql_cleanup(
    conn: &mut mysql::Conn,
    clients: u32,
    notes: &mut Vec<String>,
) -> Result<Vec<(&'static str, String)>> {
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
    Ok(saved)
}

/// The VACUUM options the original uses: INDEX_CLEANUP exists from PostgreSQL 12.
fn vacuum_options(server_version_num: u32) -> &'static str {
    if server_version_num >= 120_000 {
        "VERBOSE, ANALYZE, INDEX_CLEANUP ON"
    } else {
        "VERBOSE, ANALYZE"
    }
}

/// Every table vacuumed and analyzed at once, each on its own connection; when all are done,
/// a checkpoint writes the dirty pages out.
fn postgres_cleanup(admin: &Endpoint, clients: u32, notes: &mut Vec<String>) -> Result<()> {
    let db = schema::in_database(admin);
    let mut conn = AdminConn::open(&db)?;
    let version: u32 = conn
        .rows("SHOW server_version_num")?
        .first()
        .and_then(|r| r.first().cloned().flatten())
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| anyhow!("the server did not say its server_version_num"))?;
    let options = vacuum_options(version);
    std::thread::scope(|s| {
        let vacuums: Vec<_> = (0..clients as usize)
            .map(|c| {
                let db = &db;
                s.spawn(move || {
                    let sql = format!("VACUUM ({options}) {}", schema::table_name(c));
                    AdminConn::open(db)?.run(&sql)
                })
            })
            .collect();
        vacuums
            .into_iter()
            .map(|h| h.join().map_err(|_| anyhow!("a VACUUM thread panicked"))?)
            .collect::<Result<Vec<()>>>()
    })?;
    // CHECKPOINT needs a superuser (or pg_checkpoint from 15); the rest stands without it.
    if let Err(e) = conn.run("CHECKPOINT") {
        notes.push(format!("CHECKPOINT failed: {e:#}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn index_cleanup_only_where_the_server_knows_it() {
        assert_eq!(
            super::vacuum_options(150_018),
            "VERBOSE, ANALYZE, INDEX_CLEANUP ON"
        );
        assert_eq!(super::vacuum_options(110_022), "VERBOSE, ANALYZE");
    }
}
