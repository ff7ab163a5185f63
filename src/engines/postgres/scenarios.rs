//! PostgreSQL's instrumentation as scenarios (docs/scenarios.md#postgresql): each a set of
//! settings the sandbox reads back from pg_settings, and, for pg_stat_statements, the
//! extension created in the benchmark database and checked there.

use crate::connection::postgres::PgSession;
use crate::error::usage;
use crate::server::ServerOption;
use anyhow::{bail, Context, Result};

/// Every PostgreSQL scenario, the base first.
pub const NAMES: &[&str] = &[
    "pg_off",
    "pgss_top",
    "pgss_all",
    "pgss_planning",
    "track_io_timing",
    "track_wal_io_timing",
    "auto_explain",
    "auto_explain_analyze",
    "log_all_statements",
    "compute_query_id",
    "pg_all_on",
];

/// One scenario: its settings and whether it needs the pg_stat_statements extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgScenario {
    pub name: &'static str,
    pub description: &'static str,
    pub settings: Vec<(&'static str, &'static str)>,
    pub extension: bool,
}

const PGSS: (&str, &str) = ("shared_preload_libraries", "pg_stat_statements");

pub fn is_pg_scenario(name: &str) -> bool {
    NAMES.contains(&name)
}

pub fn scenario(name: &str) -> Result<PgScenario> {
    let Some(&name) = NAMES.iter().find(|&&n| n == name) else {
        return Err(usage(format!(
            "unknown PostgreSQL scenario '{name}'{} (known: {})",
            crate::error::suggestion(name, NAMES.iter().copied()),
            NAMES.join(", ")
        )));
    };
    let (description, settings, extension): (&str, Vec<(&str, &str)>, bool) = match name {
        "pg_off" => (
            "no extra instrumentation (PostgreSQL's defaults)",
            vec![],
            false,
        ),
        "pgss_top" => (
            "pg_stat_statements loaded, top-level statements tracked",
            vec![PGSS, ("pg_stat_statements.track", "top")],
            true,
        ),
        "pgss_all" => (
            "pg_stat_statements tracking nested statements too",
            vec![PGSS, ("pg_stat_statements.track", "all")],
            true,
        ),
        "pgss_planning" => (
            "pg_stat_statements with planning times (track_planning)",
            vec![
                PGSS,
                ("pg_stat_statements.track", "top"),
                ("pg_stat_statements.track_planning", "on"),
            ],
            true,
        ),
        "track_io_timing" => (
            "timing of block reads and writes",
            vec![("track_io_timing", "on")],
            false,
        ),
        "track_wal_io_timing" => (
            "timing of WAL writes and syncs",
            vec![("track_wal_io_timing", "on")],
            false,
        ),
        "auto_explain" => (
            "auto_explain logging every statement's plan (log_min_duration=0)",
            vec![
                ("shared_preload_libraries", "auto_explain"),
                ("auto_explain.log_min_duration", "0"),
                ("auto_explain.log_analyze", "off"),
            ],
            false,
        ),
        "auto_explain_analyze" => (
            "auto_explain with EXPLAIN ANALYZE of every statement (log_analyze)",
            vec![
                ("shared_preload_libraries", "auto_explain"),
                ("auto_explain.log_min_duration", "0"),
                ("auto_explain.log_analyze", "on"),
            ],
            false,
        ),
        "log_all_statements" => (
            "every statement and its duration logged (log_min_duration_statement=0)",
            vec![("log_min_duration_statement", "0")],
            false,
        ),
        "compute_query_id" => (
            "query identifiers computed",
            vec![("compute_query_id", "on")],
            false,
        ),
        _ => (
            "everything on: pg_stat_statements with planning, both IO timings, query ids",
            vec![
                PGSS,
                ("pg_stat_statements.track", "all"),
                ("pg_stat_statements.track_planning", "on"),
                ("track_io_timing", "on"),
                ("track_wal_io_timing", "on"),
                ("compute_query_id", "on"),
            ],
            true,
        ),
    };
    Ok(PgScenario {
        name,
        description,
        settings,
        extension,
    })
}

impl PgScenario {
    pub fn options(&self) -> Vec<ServerOption> {
        self.settings
            .iter()
            .map(|(k, v)| ServerOption::new(k, v))
            .collect()
    }

    /// On the running server, in the benchmark database: create pg_stat_statements when the
    /// scenario loads it and check that it counts; when the scenario does not load it, check
    /// that it is not loaded. (The settings themselves were read back at start.)
    pub fn apply_and_verify(&self, conn: &mut PgSession) -> Result<()> {
        let loaded = conn
            .query("SELECT setting FROM pg_settings WHERE name = 'shared_preload_libraries'")
            .context("reading shared_preload_libraries")?
            .first()
            .and_then(|r| r[0].clone())
            .unwrap_or_default();
        let has_pgss = loaded.split(',').any(|l| l.trim() == "pg_stat_statements");
        if has_pgss != self.extension {
            bail!(
                "scenario {}: shared_preload_libraries is '{loaded}'",
                self.name
            );
        }
        if self.extension {
            conn.run("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
                .context("creating the pg_stat_statements extension")?;
            let seen = conn
                .query("SELECT count(*) > 0 FROM pg_stat_statements")
                .context("reading pg_stat_statements")?;
            if seen.first().and_then(|r| r[0].as_deref()) != Some("t") {
                bail!("scenario {}: pg_stat_statements counts nothing", self.name);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_has_settings_but_the_base() {
        for n in NAMES {
            let s = scenario(n).unwrap();
            assert_eq!(s.settings.is_empty(), *n == "pg_off", "{n}");
            assert_eq!(s.extension, s.settings.contains(&PGSS), "{n}");
        }
        assert!(crate::error::is_usage(&scenario("pgss").unwrap_err()));
    }
}
