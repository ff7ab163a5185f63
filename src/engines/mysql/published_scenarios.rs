//! The scenarios as two published studies set them, beside psbench's own catalogue.
//!
//! *Performance Schema Benchmarks: OLTP RW* printed its SQL: `UPDATE … SET ENABLED = …` after
//! the server started, never touching `TIMED`, and consumers `LIKE 'events_statements%'`
//! (which leaves `statements_digest` off). The `sql_*` scenarios run those statements as
//! written, so an instrument the server registers untimed (MySQL's mutexes, its stages) is
//! counted but not timed, as it was there. The catalogue's `*_only` scenarios set both.
//!
//! *Performance Schema overhead* (2011) varied only the consumers, over one instrument set.
//! MySQL 5.6.2's default instruments are not known here (its manual is not at hand), so its
//! three settings share every instrument: `every_instrument_*`.

/// What one published setting turns on, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    pub description: String,
    /// Instrument patterns that end enabled (all others disabled).
    pub instruments_on: Vec<String>,
    /// Consumer patterns that end on (all others off).
    pub consumers_on: Vec<String>,
    /// The study's statements, run in performance_schema after the start; none for a setting
    /// made by startup options.
    pub sql: Vec<String>,
}

/// The names, in the order of the studies' own lists.
pub const NAMES: &[&str] = &[
    "sql_all_disabled",
    "sql_all_enabled",
    "sql_mdl_only",
    "sql_memory_only",
    "sql_stages_statements",
    "sql_stages_only",
    "sql_statements_only",
    "sql_waits_only",
    "every_instrument_all_consumers",
    "every_instrument_global_only",
    "every_instrument_no_consumer",
];

const ALL_OFF: [&str; 2] = [
    "update setup_consumers set enabled='no'",
    "update setup_instruments set enabled='no'",
];
const GLOBAL_AND_THREAD: [&str; 2] = [
    "update setup_consumers set enabled='yes' where name= 'global_instrumentation'",
    "update setup_consumers set enabled='yes' where name= 'thread_instrumentation'",
];
const STATEMENTS: [&str; 2] = [
    "update setup_instruments set enabled='yes' where name like 'statement%'",
    "update setup_consumers set enabled='yes' where name like 'events_statements%'",
];
const STAGES: [&str; 2] = [
    "update setup_instruments set enabled='yes' where name like 'stage%'",
    "update setup_consumers set enabled='yes' where name like 'events_stages%'",
];

/// The setting called `name`, if it is one of these.
pub fn setting(name: &str) -> Option<Setting> {
    let gt = ["global_instrumentation", "thread_instrumentation"];
    // Every study's scenario after the first two: everything off, the two base consumers on,
    // then its own statements.
    let narrowed = |own: &[&'static str]| -> Vec<&'static str> {
        ALL_OFF
            .iter()
            .chain(GLOBAL_AND_THREAD.iter())
            .chain(own.iter())
            .copied()
            .collect()
    };
    let strings = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
    let from_sql = |desc: &str, sql: Vec<&str>, inst: &[&str], cons: &[&str]| Setting {
        description: format!(
            "{desc}, by the OLTP RW study's SQL (ENABLED only, TIMED as the server has it)"
        ),
        instruments_on: strings(inst),
        consumers_on: strings(cons),
        sql: strings(&sql),
    };
    let with = |more: &[&'static str]| -> Vec<&'static str> {
        gt.iter().copied().chain(more.iter().copied()).collect()
    };
    let every = |desc: &str, cons: &[&str]| Setting {
        description: format!(
            "every instrument on, {desc}: {}",
            "one instrument set for the overhead study's three settings"
        ),
        instruments_on: strings(&["%"]),
        consumers_on: strings(cons),
        sql: Vec::new(),
    };
    Some(match name {
        "sql_all_disabled" => from_sql(
            "every instrument and consumer disabled",
            ALL_OFF.to_vec(),
            &[],
            &[],
        ),
        "sql_all_enabled" => from_sql(
            "every instrument and consumer enabled",
            vec![
                "update setup_instruments set enabled='yes'",
                "update setup_consumers set enabled='yes'",
            ],
            &["%"],
            &["%"],
        ),
        "sql_mdl_only" => from_sql(
            "the metadata-lock instrument only",
            narrowed(&["update setup_instruments set enabled='yes' where name='wait/lock/metadata/sql/mdl'"]),
            &["wait/lock/metadata/sql/mdl"],
            &gt,
        ),
        "sql_memory_only" => from_sql(
            "memory instruments only",
            narrowed(&["update setup_instruments set enabled='yes' where name like 'memory%'"]),
            &["memory%"],
            &gt,
        ),
        "sql_stages_statements" => from_sql(
            "stage and statement instruments and consumers",
            narrowed(&[STATEMENTS, STAGES].concat()),
            &["stage%", "statement%"],
            &with(&["events_stages_%", "events_statements_%"]),
        ),
        "sql_stages_only" => from_sql(
            "stage instruments and consumers",
            narrowed(&STAGES),
            &["stage%"],
            &with(&["events_stages_%"]),
        ),
        "sql_statements_only" => from_sql(
            "statement instruments and consumers (statements_digest stays off)",
            narrowed(&STATEMENTS),
            &["statement%"],
            &with(&["events_statements_%"]),
        ),
        "sql_waits_only" => from_sql(
            "wait instruments and consumers",
            narrowed(&[
                "update setup_instruments set enabled='yes' where name like 'wait%' ",
                "update setup_consumers set enabled='yes' where name like 'events_waits%'",
            ]),
            &["wait%"],
            &with(&["events_waits_%"]),
        ),
        "every_instrument_all_consumers" => every("every consumer on (the study's PS on)", &["%"]),
        "every_instrument_global_only" => every(
            "only the global_instrumentation consumer (its PS only global)",
            &["global_instrumentation"],
        ),
        "every_instrument_no_consumer" => every("every consumer off (its PS all off)", &[]),
        _ => return None,
    })
}
