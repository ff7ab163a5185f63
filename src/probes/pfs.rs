//! performance_schema facts read from a running server: how much memory it holds and which
//! instruments and consumers are enabled (to verify that a variant took effect).

use crate::connection::AdminConn;
pub use crate::results::provenance::{InstrumentClass, PfsState};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;

impl PfsState {
    /// A server without a performance_schema has the empty state.
    pub fn read_any(conn: &mut AdminConn) -> Result<Self> {
        Ok(conn.performance_schema(Self::read)?.unwrap_or_default())
    }

    /// A server built without performance_schema has no such variable: compiled out.
    pub fn read(conn: &mut mysql::Conn) -> Result<Self> {
        let on: Option<(String, String)> = conn
            .query_first("SHOW GLOBAL VARIABLES LIKE 'performance\\_schema'")
            .context("reading @@performance_schema")?;
        match on.as_ref().map(|(_, v)| v.as_str()) {
            None => {
                return Ok(PfsState {
                    compiled_out: true,
                    ..PfsState::default()
                })
            }
            Some("1" | "ON") => {}
            Some(_) => return Ok(PfsState::default()),
        }
        // A wait's class is its first three parts (wait/synch/mutex), any other's its first.
        let classes: Vec<(String, u64, Option<u64>, Option<u64>)> = conn
            .query(
                "SELECT IF(NAME LIKE 'wait/%', SUBSTRING_INDEX(NAME, '/', 3), \
                 SUBSTRING_INDEX(NAME, '/', 1)) AS class, COUNT(*), \
                 CAST(SUM(ENABLED='YES') AS UNSIGNED), CAST(SUM(TIMED='YES') AS UNSIGNED) \
                 FROM performance_schema.setup_instruments GROUP BY class ORDER BY class",
            )
            .context("counting performance_schema instruments per class")?;
        let classes = classes
            .into_iter()
            .map(|(class, instruments, en, timed)| InstrumentClass {
                class,
                instruments,
                enabled: en.unwrap_or(0),
                timed: timed.unwrap_or(0),
            })
            .collect::<Vec<InstrumentClass>>();
        // The totals are the classes' sums: one query reads both.
        let sum = |f: fn(&InstrumentClass) -> u64| classes.iter().map(f).sum::<u64>();
        let (instruments, enabled, timed) =
            (sum(|c| c.instruments), sum(|c| c.enabled), sum(|c| c.timed));
        let mut consumers_on: Vec<String> = conn
            .query(
                "SELECT NAME FROM performance_schema.setup_consumers WHERE ENABLED='YES' ORDER BY NAME",
            )
            .context("reading performance_schema consumers")?;
        consumers_on.sort();
        let status: Vec<(String, String, String)> = conn
            .query("SHOW ENGINE PERFORMANCE_SCHEMA STATUS")
            .context("reading SHOW ENGINE PERFORMANCE_SCHEMA STATUS")?;
        let memory_bytes = status
            .iter()
            .find(|(_, name, _)| name == "performance_schema.memory")
            .and_then(|(_, _, v)| v.parse().ok())
            .unwrap_or(0);
        Ok(PfsState {
            classes,
            enabled: true,
            instruments,
            instruments_enabled: enabled,
            instruments_timed: timed,
            consumers_on,
            memory_bytes,
            compiled_out: false,
        })
    }
}
