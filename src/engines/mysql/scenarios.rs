//! The performance_schema scenarios of the published studies, as server options, and what a
//! server running each must show (docs/scenarios.md; names follow Percona's 2017
//! "Performance Schema Benchmarks", plus PS off and MariaDB's userstat). The instrument and
//! consumer names are the same on MariaDB 10.x/11.x, MySQL 5.7 and 8.0; what differs is the
//! set of consumers each enables by default, and userstat, which only MariaDB has.

use crate::error::usage;
use crate::probes::PfsState;
use crate::server::{Flavour, ServerOption};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};

/// The 15 consumers of MariaDB 10.11 / MySQL 5.7.
pub const CONSUMERS: &[&str] = &[
    "events_stages_current",
    "events_stages_history",
    "events_stages_history_long",
    "events_statements_current",
    "events_statements_history",
    "events_statements_history_long",
    "events_transactions_current",
    "events_transactions_history",
    "events_transactions_history_long",
    "events_waits_current",
    "events_waits_history",
    "events_waits_history_long",
    "global_instrumentation",
    "thread_instrumentation",
    "statements_digest",
];

/// Servers whose performance_schema defaults differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PfsFlavour {
    MariaDb,
    MySql57,
    MySql80,
}

impl PfsFlavour {
    pub const ALL: [PfsFlavour; 3] = [
        PfsFlavour::MariaDb,
        PfsFlavour::MySql57,
        PfsFlavour::MySql80,
    ];

    /// From a server's flavour and `--version` (MySQL before 8.0 behaves as 5.7). PostgreSQL
    /// has no performance_schema: variants are refused before they reach here.
    pub fn of(flavour: Flavour, version: &str) -> Self {
        match flavour {
            Flavour::MariaDb | Flavour::Postgres => PfsFlavour::MariaDb,
            Flavour::MySql => {
                let major: u32 = version
                    .split('.')
                    .next()
                    .and_then(|m| m.parse().ok())
                    .unwrap_or(8);
                if major >= 8 {
                    PfsFlavour::MySql80
                } else {
                    PfsFlavour::MySql57
                }
            }
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            PfsFlavour::MariaDb => "MariaDB",
            PfsFlavour::MySql57 => "MySQL 5.7",
            PfsFlavour::MySql80 => "MySQL 8.0",
        }
    }

    /// The consumers the server enables when none is set (read from fresh servers: MariaDB
    /// 10.11.19 and 11.4.5, MySQL 5.7.22 and 8.0.15).
    pub fn default_consumers(self) -> &'static [&'static str] {
        match self {
            PfsFlavour::MariaDb => &[
                "global_instrumentation",
                "thread_instrumentation",
                "statements_digest",
            ],
            PfsFlavour::MySql57 => &[
                "events_statements_current",
                "events_statements_history",
                "global_instrumentation",
                "thread_instrumentation",
                "statements_digest",
            ],
            PfsFlavour::MySql80 => &[
                "events_statements_current",
                "events_statements_history",
                "events_transactions_current",
                "events_transactions_history",
                "global_instrumentation",
                "thread_instrumentation",
                "statements_digest",
            ],
        }
    }
}

/// What a scenario asks for, in a form that can be both applied and checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub pfs: bool,
    /// `--performance-schema-instrument` patterns set ON after `%=OFF`; `None` keeps the
    /// server's default instrument set.
    pub instruments_on: Option<Vec<String>>,
    /// Consumer glob patterns set ON (all others OFF); `None` keeps the defaults.
    pub consumers_on: Option<Vec<String>>,
    /// Extra options (userstat, digest off).
    pub extra: Vec<String>,
    /// Only MariaDB has it (userstat).
    pub mariadb_only: bool,
    /// Statements run as written in performance_schema once the server is up (a published
    /// study's own SQL); the instruments and consumers above are then what they must leave.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sql: Vec<String>,
}

/// Every scenario name, in the order of the published tables.
pub const NAMES: &[&str] = &[
    "ps_off",
    "default",
    "all_disabled",
    "consumers_off",
    "all_enabled",
    "mdl_only",
    "memory_only",
    "stages_statements",
    "stages_only",
    "statements_only",
    "waits_only",
    "global_only",
    "default_nodigest",
    "userstat",
];

/// The catalogue's names, then those of the published studies' own settings.
pub static ALL: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    NAMES
        .iter()
        .chain(super::published_scenarios::NAMES)
        .copied()
        .collect()
});

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// The scenario called `name`, or a usage error listing the valid names.
pub fn scenario(name: &str) -> Result<Scenario> {
    let gt = ["global_instrumentation", "thread_instrumentation"];
    let mk =
        |desc: &str, pfs: bool, inst: Option<&[&str]>, cons: Option<&[&str]>, extra: &[&str]| {
            Scenario {
                name: name.to_string(),
                description: desc.to_string(),
                pfs,
                instruments_on: inst.map(s),
                consumers_on: cons.map(s),
                extra: s(extra),
                mariadb_only: false,
                sql: Vec::new(),
            }
        };
    let with = |more: &[&'static str]| -> Vec<&'static str> {
        gt.iter().copied().chain(more.iter().copied()).collect()
    };
    Ok(match name {
        "ps_off" => mk("performance_schema=OFF", false, None, None, &[]),
        "default" => mk(
            "performance_schema=ON, default instruments and consumers",
            true,
            None,
            None,
            &[],
        ),
        "all_disabled" => mk(
            "PFS on, every instrument and consumer off",
            true,
            Some(&[]),
            Some(&[]),
            &[],
        ),
        "consumers_off" => mk(
            "PFS on, the instruments the server enables by default, every consumer off",
            true,
            None,
            Some(&[]),
            &[],
        ),
        "all_enabled" => mk(
            "PFS on, every instrument and consumer on",
            true,
            Some(&["%"]),
            Some(&["%"]),
            &[],
        ),
        "mdl_only" => mk(
            "metadata-lock instrument only",
            true,
            Some(&["wait/lock/metadata/sql/mdl"]),
            Some(&gt),
            &[],
        ),
        "memory_only" => mk(
            "memory instruments only",
            true,
            Some(&["memory/%"]),
            Some(&gt),
            &[],
        ),
        "stages_statements" => mk(
            "stage and statement instruments and consumers",
            true,
            Some(&["stage/%", "statement/%"]),
            Some(&with(&[
                "events_stages_%",
                "events_statements_%",
                "statements_digest",
            ])),
            &[],
        ),
        "stages_only" => mk(
            "stage instruments and consumers",
            true,
            Some(&["stage/%"]),
            Some(&with(&["events_stages_%"])),
            &[],
        ),
        "statements_only" => mk(
            "statement instruments and consumers",
            true,
            Some(&["statement/%"]),
            Some(&with(&["events_statements_%", "statements_digest"])),
            &[],
        ),
        "waits_only" => mk(
            "wait instruments and consumers",
            true,
            Some(&["wait/%"]),
            Some(&with(&["events_waits_%"])),
            &[],
        ),
        "global_only" => mk(
            "every instrument on, only the global_instrumentation consumer",
            true,
            Some(&["%"]),
            Some(&["global_instrumentation"]),
            &[],
        ),
        "default_nodigest" => mk(
            "default without the statements_digest consumer",
            true,
            None,
            None,
            &["performance_schema_consumer_statements_digest=OFF"],
        ),
        "userstat" => Scenario {
            mariadb_only: true,
            ..mk(
                "PFS off, MariaDB user statistics on",
                false,
                None,
                None,
                &["userstat=ON"],
            )
        },
        other => match super::published_scenarios::setting(other) {
            Some(p) => Scenario {
                name: name.to_string(),
                description: p.description,
                pfs: true,
                instruments_on: Some(p.instruments_on),
                consumers_on: Some(p.consumers_on),
                extra: Vec::new(),
                mariadb_only: false,
                sql: p.sql,
            },
            None => {
                return Err(usage(format!(
                    "unknown scenario '{other}'{} (known: {})",
                    crate::error::suggestion(other, ALL.iter().copied()),
                    ALL.join(", ")
                )))
            }
        },
    })
}

/// The instrument classes (MySQL's `DISABLE_PSI_*` names) an instrument pattern reaches.
fn classes_of(pattern: &str) -> &'static [&'static str] {
    const WAITS: &[&str] = &["MUTEX", "RWLOCK", "COND", "FILE", "SOCKET", "TABLE", "IDLE"];
    match pattern {
        p if p.starts_with("wait/lock/metadata") => &["METADATA"],
        p if p.starts_with("wait") => WAITS,
        p if p.starts_with("memory") => &["MEMORY"],
        p if p.starts_with("stage") => &["STAGE"],
        p if p.starts_with("statement") => &["STATEMENT"],
        p if p.starts_with("transaction") => &["TRANSACTION"],
        _ => &[],
    }
}

/// SQL LIKE pattern matching a consumer glob (`events_stages_%`, `%`).
fn consumer_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('%') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

impl Scenario {
    /// The startup options that produce this scenario.
    pub fn options(&self) -> Vec<ServerOption> {
        let mut v = vec![ServerOption::new(
            "performance_schema",
            if self.pfs { "ON" } else { "OFF" },
        )];
        // A published study's SQL sets it all after the start, over the server's defaults.
        if !self.sql.is_empty() {
            return v;
        }
        if let Some(inst) = &self.instruments_on {
            if inst.iter().any(|p| p == "%") {
                v.push(ServerOption::new("performance_schema_instrument", "%=ON"));
            } else {
                v.push(ServerOption::new("performance_schema_instrument", "%=OFF"));
                for p in inst {
                    v.push(ServerOption::new(
                        "performance_schema_instrument",
                        &format!("{p}=ON"),
                    ));
                }
            }
        }
        if let Some(cons) = &self.consumers_on {
            for c in CONSUMERS {
                let on = cons.iter().any(|p| consumer_matches(p, c));
                v.push(ServerOption::new(
                    &format!("performance_schema_consumer_{c}"),
                    if on { "ON" } else { "OFF" },
                ));
            }
        }
        for e in &self.extra {
            v.push(ServerOption::parse(e).expect("built-in scenario options parse"));
        }
        v
    }

    /// A published study's statements, as it ran them: unqualified, in performance_schema.
    pub fn apply_sql(&self, conn: &mut mysql::Conn) -> Result<()> {
        if self.sql.is_empty() {
            return Ok(());
        }
        conn.query_drop("USE performance_schema")
            .context("selecting performance_schema")?;
        for stmt in &self.sql {
            conn.query_drop(stmt)
                .with_context(|| format!("scenario '{}': running `{stmt}`", self.name))?;
        }
        Ok(())
    }

    /// The instrument classes this scenario measures by name (`stage/%`: STAGE). A scenario of
    /// every instrument, or of the defaults, names none: it measures what is compiled in.
    pub fn classes_needed(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for p in self.instruments_on.iter().flatten() {
            for c in classes_of(p) {
                if !out.contains(c) {
                    out.push(c);
                }
            }
        }
        out
    }

    /// Whether this scenario exists on `on`: a one-line usage error naming it where it does not.
    pub fn available_on(&self, on: PfsFlavour) -> Result<()> {
        if self.mariadb_only && on != PfsFlavour::MariaDb {
            return Err(usage(format!(
                "scenario '{}' is MariaDB's only ({}); {} has no such setting",
                self.name,
                self.description,
                on.label()
            )));
        }
        Ok(())
    }

    /// The consumers that must be ON on a server of kind `on`, sorted.
    pub fn expected_consumers(&self, on: PfsFlavour) -> Option<Vec<String>> {
        if !self.pfs {
            return None;
        }
        let cons: Vec<String> = match &self.consumers_on {
            Some(p) => CONSUMERS
                .iter()
                .filter(|c| p.iter().any(|pat| consumer_matches(pat, c)))
                .map(|c| c.to_string())
                .collect(),
            None => on
                .default_consumers()
                .iter()
                .filter(|c| {
                    !self
                        .extra
                        .iter()
                        .any(|e| e.starts_with(&format!("performance_schema_consumer_{c}=OFF")))
                })
                .map(|c| c.to_string())
                .collect(),
        };
        let mut cons = cons;
        cons.sort();
        Some(cons)
    }

    /// Check a running server against this scenario: PFS on or off, exactly the expected
    /// consumers, and exactly the expected instruments enabled (the 70 `memory/performance_schema/%`
    /// instruments cannot be disabled and count as expected). Returns what was read.
    pub fn verify(&self, conn: &mut mysql::Conn, on: PfsFlavour) -> Result<PfsState> {
        self.available_on(on)?;
        let state = PfsState::read(conn)?;
        let mut problems = Vec::new();
        if state.enabled != self.pfs {
            problems.push(format!(
                "performance_schema is {} (expected {})",
                if state.enabled { "ON" } else { "OFF" },
                if self.pfs { "ON" } else { "OFF" }
            ));
        }
        if let Some(want) = self.expected_consumers(on) {
            if state.enabled && state.consumers_on != want {
                problems.push(format!(
                    "consumers ON are [{}], expected [{}]",
                    state.consumers_on.join(", "),
                    want.join(", ")
                ));
            }
        }
        if let (true, Some(inst)) = (state.enabled, &self.instruments_on) {
            let mut patterns: Vec<String> = inst.clone();
            patterns.push("memory/performance_schema/%".into());
            let cond = patterns
                .iter()
                .map(|p| format!("NAME LIKE '{}'", p.replace('\'', "''")))
                .collect::<Vec<_>>()
                .join(" OR ");
            let q = format!(
                "SELECT CAST(SUM(ENABLED='YES') AS UNSIGNED), CAST(SUM({cond}) AS UNSIGNED), \
                 CAST(SUM(ENABLED='YES' AND ({cond})) AS UNSIGNED) FROM performance_schema.setup_instruments"
            );
            let (enabled, matching, both): (u64, u64, u64) = conn
                .query_first(&q)
                .context("checking enabled instruments")?
                .unwrap_or_default();
            if enabled != matching || both != matching {
                problems.push(format!(
                    "{enabled} instruments enabled, expected exactly the {matching} matching {}",
                    patterns.join(" | ")
                ));
            }
        }
        if !problems.is_empty() {
            anyhow::bail!(
                "scenario '{}' did not take effect: {}",
                self.name,
                problems.join("; ")
            );
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_and_unknown_is_usage() {
        for n in NAMES {
            let sc = scenario(n).unwrap();
            assert!(!sc.options().is_empty());
        }
        assert!(crate::error::is_usage(&scenario("nope").unwrap_err()));
        let userstat = scenario("userstat").unwrap();
        assert!(userstat.available_on(PfsFlavour::MariaDb).is_ok());
        let e = userstat.available_on(PfsFlavour::MySql57).unwrap_err();
        assert!(
            crate::error::is_usage(&e) && e.to_string().contains("MySQL 5.7"),
            "{e}"
        );
        assert_eq!(
            PfsFlavour::of(Flavour::MySql, "5.7.22"),
            PfsFlavour::MySql57
        );
        assert_eq!(
            PfsFlavour::of(Flavour::MySql, "8.0.15"),
            PfsFlavour::MySql80
        );
        assert_eq!(
            PfsFlavour::of(Flavour::MariaDb, "11.4.5-MariaDB"),
            PfsFlavour::MariaDb
        );
    }

    #[test]
    fn a_scenario_names_the_instrument_classes_it_measures() {
        let needs = |n: &str| scenario(n).unwrap().classes_needed();
        assert_eq!(needs("mdl_only"), ["METADATA"]);
        assert_eq!(needs("stages_statements"), ["STAGE", "STATEMENT"]);
        assert_eq!(needs("memory_only"), ["MEMORY"]);
        assert_eq!(needs("waits_only").len(), 7);
        for every in [
            "ps_off",
            "default",
            "all_enabled",
            "all_disabled",
            "global_only",
        ] {
            assert!(needs(every).is_empty(), "{every}");
        }
    }

    #[test]
    fn consumer_options_set_all_fifteen() {
        let sc = scenario("stages_only").unwrap();
        let opts = sc.options();
        let cons: Vec<_> = opts
            .iter()
            .filter(|o| o.key.starts_with("performance_schema_consumer_"))
            .collect();
        assert_eq!(cons.len(), 15);
        let on: Vec<_> = cons
            .iter()
            .filter(|o| o.value.as_deref() == Some("ON"))
            .map(|o| o.key.trim_start_matches("performance_schema_consumer_"))
            .collect();
        assert_eq!(
            on,
            [
                "events_stages_current",
                "events_stages_history",
                "events_stages_history_long",
                "global_instrumentation",
                "thread_instrumentation"
            ]
        );
        for on in PfsFlavour::ALL {
            assert_eq!(sc.expected_consumers(on).unwrap().len(), 5);
        }
        let nodigest = scenario("default_nodigest").unwrap();
        assert_eq!(
            nodigest.expected_consumers(PfsFlavour::MariaDb).unwrap(),
            ["global_instrumentation", "thread_instrumentation"]
        );
        let mysql = nodigest.expected_consumers(PfsFlavour::MySql80).unwrap();
        assert!(!mysql.contains(&"statements_digest".to_string()) && mysql.len() == 6);
        assert_eq!(PfsFlavour::MySql57.default_consumers().len(), 5);
    }

    #[test]
    fn the_published_settings_are_as_their_studies_wrote_them() {
        for n in super::super::published_scenarios::NAMES {
            let sc = scenario(n).unwrap();
            assert!(sc.sql.iter().all(|q| !q.contains("timed")), "{n}");
            // Applied as SQL, nothing of it goes to the startup options.
            if !sc.sql.is_empty() {
                assert_eq!(sc.options().len(), 1, "{n}: {:?}", sc.options());
            }
        }
        let cons = |n: &str| scenario(n).unwrap().expected_consumers(PfsFlavour::MySql80);
        let digest = "statements_digest".to_string();
        assert!(!cons("sql_statements_only").unwrap().contains(&digest));
        assert!(cons("statements_only").unwrap().contains(&digest));
        assert_eq!(needs_of("sql_stages_statements"), ["STAGE", "STATEMENT"]);
        // The overhead study's three settings: one instrument set, 15, 1 and 0 consumers.
        let every = ["all_consumers", "global_only", "no_consumer"]
            .map(|c| scenario(&format!("every_instrument_{c}")).unwrap());
        assert!(every
            .iter()
            .all(|s| s.instruments_on == every[0].instruments_on));
        let on = every.map(|s| s.expected_consumers(PfsFlavour::MySql57).unwrap().len());
        assert_eq!(on, [15, 1, 0]);
    }

    fn needs_of(n: &str) -> Vec<&'static str> {
        scenario(n).unwrap().classes_needed()
    }
}
