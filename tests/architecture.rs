//! Architecture test: which stage (top-level module under src/) imports which, stated limits
//! on that, the two engine families kept apart, the engine asked about only in `engines` and
//! `connection`, no import cycles between stages or between files, and no file over 600 lines.
//!
//! A text scan, not a Rust parser: comments and string literals are blanked out, then every
//! `crate::`, `psbench::` and `super::` path is read. The checker itself is tested on the
//! fixture tree under tests/data/architecture/, which breaks every rule on purpose.

#[path = "architecture/checks.rs"]
mod checks;
#[path = "architecture/fixture.rs"]
mod fixture;
#[path = "architecture/graph.rs"]
mod graph;
#[path = "architecture/source.rs"]
mod source;
#[path = "architecture/tokens.rs"]
mod tokens;

use checks::{
    apart_breaches, engine_questions, forbidden, kind_questions, list_breaches, long_files,
    stage_breaches,
};
use graph::{file_cycles, stage_cycles};
use source::{line_counts, scan};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Longest a file under src/ or tests/ may be, in lines.
const MAX_LINES: usize = 600;

/// Not a pipeline stage but a shared leaf: anyone may import it, and no list names it.
const SHARED: &str = "error";

/// A stage and exactly the stages it imports (besides `SHARED` and itself), sorted.
type StageList = (&'static str, &'static [&'static str]);

/// THE stage lists, kept only here: the README's "Layout" section points to them. Each is the
/// picture of the code: a stage importing one not listed fails, and so does a listed one it
/// no longer imports. On a mismatch the test prints the list the code has, ready to paste.
/// A new top-level module under src/ fails the test until it has a list here.
#[rustfmt::skip]
const RULES: &[StageList] = &[
    ("builds", &["server"]),
    ("cli", &["builds", "connection", "console", "driver", "engines", "history", "ibench_sequence", "probes", "report", "results", "run", "server", "study", "workloads"]),
    ("connection", &[]),
    ("console", &["connection", "driver", "ibench_sequence", "results", "workloads"]),
    ("cost", &["connection", "results", "server", "workloads"]),
    ("driver", &["connection", "results", "workloads"]),
    ("engines", &["builds", "connection", "cost", "probes", "results", "server", "workloads"]),
    ("error", &[]),
    ("history", &["results", "stats"]),
    ("ibench_sequence", &["connection", "driver", "results", "workloads"]),
    ("probes", &["connection", "results"]),
    ("profile", &["results"]),
    ("report", &["results", "stats"]),
    ("results", &[]),
    ("run", &["connection", "cost", "driver", "engines", "ibench_sequence", "probes", "profile", "results", "server", "stats", "study", "workloads"]),
    ("server", &["connection", "results"]),
    ("stats", &[]),
    ("study", &["cost", "driver", "engines", "results", "server", "stats", "workloads"]),
    ("workloads", &["connection", "results"]),
];

/// report/'s rooms (docs/architecture.md: what a reader sees) and exactly the rooms each
/// imports, sorted; the files beside the rooms (the subject, its cells, the grid, the pooled
/// measure, the comparison and the gate) are rooms of one file.
#[rustfmt::skip]
const REPORT_ROOMS: &[StageList] = &[
    ("cells", &["subject"]),
    ("charts", &["cells", "grid", "subject", "tables"]),
    ("compare", &["subject"]),
    ("findings", &["cells", "grid", "pooled", "published", "subject", "tables"]),
    ("gate", &["subject", "tables"]),
    ("grid", &[]),
    ("pooled", &["cells", "subject"]),
    ("published", &["grid", "pooled", "subject"]),
    ("render", &["cells", "charts", "findings", "grid", "published", "subject", "tables"]),
    ("subject", &[]),
    ("tables", &["cells", "grid", "subject"]),
];

/// A rule that holds whatever the lists say: the lists may change with the code, these not.
enum Limit {
    /// The stage imports no stage but these (and `SHARED`).
    ImportsOnly(&'static str, &'static [&'static str]),
    /// The stage never imports these.
    NeverImports(&'static str, &'static [&'static str]),
    /// No stage but these imports the stage.
    ImportedOnlyBy(&'static str, &'static [&'static str]),
}
use Limit::{ImportedOnlyBy, ImportsOnly, NeverImports};

impl Limit {
    /// Whether stage `from` importing stage `to` breaks this limit.
    fn forbids(&self, from: &str, to: &str) -> bool {
        match *self {
            ImportsOnly(stage, only) => from == stage && to != SHARED && !only.contains(&to),
            NeverImports(stage, never) => from == stage && never.contains(&to),
            ImportedOnlyBy(stage, only) => to == stage && !only.contains(&from),
        }
    }
}

/// The stated rules, checked on every import besides the exact lists.
#[rustfmt::skip]
const LIMITS: &[Limit] = &[
    // The top: parses arguments and calls into the stages; nothing imports it.
    ImportedOnlyBy("cli", &[]),
    ImportedOnlyBy("console", &["cli"]),
    ImportsOnly("connection", &[]),
    // A run counts with cost mode, not the other way round.
    NeverImports("cost", &["run", "study"]),
    // What a study is never depends on how it runs.
    NeverImports("study", &["run"]),
    // An engine is a server flavour plus a client, and says how cost mode counts its work and
    // how its server is built from source.
    ImportsOnly("engines", &["builds", "connection", "cost", "probes", "results", "server", "workloads"]),
    // Builds run the recipe an engine gives; they never ask which engine it is.
    ImportsOnly("builds", &["server"]),
    ImportsOnly("error", &[]),
    ImportsOnly("report", &["results", "stats"]),
    ImportsOnly("history", &["results", "stats"]),
    ImportsOnly("results", &[]),
    NeverImports("server", &["cli", "console", "driver", "engines", "report", "run", "study", "workloads"]),
    ImportsOnly("stats", &[]),
    // Workloads speak to a connection, never to a server.
    NeverImports("workloads", &["cli", "console", "driver", "report", "run", "server", "study"]),
];

/// Folders that never import each other, either way: each engine family keeps its own
/// knowledge, and what they share lives in the folder above them.
const APART: &[(&str, &str)] = &[("engines/mysql", "engines/postgres")];

/// The only stages that may ask which engine a thing is: the engine's own folders and the
/// client's protocols. Everywhere else the question goes through them.
const ASKING_STAGES: &[&str] = &["connection", "engines"];

/// The ways of asking which engine a thing is: its variants ("Name::" is any item of Name)
/// and the methods answering it. A new engine enum or question belongs here, so that code
/// outside ASKING_STAGES cannot start branching on the engine again.
const ENGINE_QUESTIONS: &[&str] = &[
    "Flavour::",
    "PfsFlavour::",
    "Family::",
    "Engine::MySql",
    "Engine::Postgres",
    "Session::Pg",
    "Session::MySql",
    "AdminConn::Pg",
    "AdminConn::MySql",
    "Prepared::Pg",
    "Prepared::MySql",
    "SessionError::Pg",
    "SessionError::MySql",
    "is_postgres",
    "is_mysql_family",
    "is_mysql",
    "is_mariadb",
];

/// The only stage that may ask which kind of workload a step is: the kinds live there
/// (workloads::kinds), and everything else asks the kind.
const KIND_ASKING_STAGES: &[&str] = &["workloads"];

/// The ways of asking which kind of workload a step is: its names and the tests on them.
const KIND_QUESTIONS: &[&str] = &[
    "is_insert_benchmark",
    "is_pgbench",
    "is_script",
    "is_replay",
    "INSERT_BENCHMARK",
    "PGBENCH_WORKLOADS",
    "insert_benchmark::InsertBenchmark",
];

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn assert_none(what: &str, breaches: Vec<String>) {
    let (n, list) = (breaches.len(), breaches.join("\n"));
    assert!(breaches.is_empty(), "{n} {what}:\n{list}\n");
}

// ---- The rules over the real src/ and tests/ ----

#[test]
fn src_stages_import_exactly_their_listed_stages() {
    assert_none(
        "stage list mismatches",
        list_breaches(&scan(manifest_dir()), RULES),
    );
}

#[test]
fn src_stages_keep_the_stated_limits() {
    assert_none(
        "stage rule breaches",
        stage_breaches(&scan(manifest_dir()), RULES),
    );
}

/// The room of a file under src/report/: its folder, or its own name; None for report's mod.rs.
fn report_room(rel: &str) -> Option<&str> {
    let first = rel.strip_prefix("src/report/")?.split('/').next()?;
    (first != "mod.rs").then(|| first.trim_end_matches(".rs"))
}

#[test]
fn report_rooms_import_exactly_their_listed_rooms() {
    let files = scan(manifest_dir());
    let rooms: BTreeSet<&str> = files.iter().filter_map(|f| report_room(&f.rel)).collect();
    let mut edges: BTreeMap<&str, BTreeSet<&str>> =
        rooms.iter().map(|r| (*r, BTreeSet::new())).collect();
    for f in &files {
        let Some(from) = report_room(&f.rel) else {
            continue;
        };
        for r in &f.refs {
            let to = match r.module.as_slice() {
                [stage, to, ..] if stage == "report" => to.as_str(),
                _ => continue,
            };
            if let (true, Some(to)) = (to != from, rooms.get(to)) {
                edges.get_mut(from).unwrap().insert(to);
            }
        }
    }
    let line = |room: &str, to: &mut dyn Iterator<Item = &str>| {
        let to: Vec<String> = to.map(|t| format!("\"{t}\"")).collect();
        format!("    (\"{room}\", &[{}]),", to.join(", "))
    };
    let have: Vec<String> = edges
        .iter()
        .map(|(r, to)| line(r, &mut to.iter().copied()))
        .collect();
    let want: Vec<String> = REPORT_ROOMS
        .iter()
        .map(|(r, to)| line(r, &mut to.iter().copied()))
        .collect();
    assert!(
        want == have,
        "REPORT_ROOMS is not the code's picture; the code has:\n{}",
        have.join("\n")
    );
}

#[test]
fn src_engine_families_never_import_each_other() {
    assert_none(
        "imports between engine families",
        apart_breaches(&scan(manifest_dir())),
    );
}

#[test]
fn src_asks_which_engine_only_in_engines_and_connection() {
    let found = engine_questions(&scan(manifest_dir()));
    assert_none("places asking which engine", found);
}

#[test]
fn src_asks_which_kind_of_workload_only_in_workloads() {
    let found = kind_questions(&scan(manifest_dir()));
    assert_none("places asking which kind of workload", found);
}

#[test]
fn src_has_no_import_cycles_between_stages() {
    assert_none("stage cycles", stage_cycles(&scan(manifest_dir())));
}

#[test]
fn src_has_no_import_cycles_between_files() {
    assert_none("file cycles", file_cycles(&scan(manifest_dir())));
}

#[test]
fn src_and_tests_files_are_at_most_600_lines() {
    assert_none("files too long", long_files(&line_counts(manifest_dir())));
}

// ---- The rules themselves ----

fn has_list(stage: &str) -> bool {
    RULES.iter().any(|(s, _)| *s == stage)
}

#[test]
fn rule_lists_name_each_stage_once_sorted_and_only_stages() {
    let stages: Vec<&str> = RULES.iter().map(|(s, _)| *s).collect();
    assert!(
        stages.windows(2).all(|w| w[0] < w[1]),
        "RULES not sorted, or a stage twice"
    );
    for (stage, list) in RULES {
        assert!(
            list.windows(2).all(|w| w[0] < w[1]),
            "{stage}'s list is not sorted"
        );
        let odd: Vec<_> = list
            .iter()
            .filter(|n| !has_list(n) || *n == stage)
            .collect();
        assert!(odd.is_empty(), "{stage} lists {odd:?}, not other stages");
        assert!(
            !list.contains(&SHARED),
            "{stage} lists {SHARED}, which no list names"
        );
    }
    for limit in LIMITS {
        let (ImportsOnly(stage, names) | NeverImports(stage, names) | ImportedOnlyBy(stage, names)) =
            limit;
        let unknown: Vec<_> = names
            .iter()
            .chain([stage])
            .filter(|n| !has_list(n))
            .collect();
        assert!(unknown.is_empty(), "a limit on {stage} names {unknown:?}");
    }
}

#[test]
fn rule_lists_keep_the_stated_limits() {
    for (stage, list) in RULES {
        let broken: Vec<_> = list.iter().filter(|to| forbidden(stage, to)).collect();
        assert!(
            broken.is_empty(),
            "{stage} lists {broken:?}, which a limit forbids"
        );
    }
}
