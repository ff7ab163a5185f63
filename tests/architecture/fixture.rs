//! The checker itself, so that it fails for the reasons it exists: its parts on small inputs,
//! then every rule on the fixture tree tests/data/architecture/, with the exact breaches.

use crate::checks::{
    apart_breaches, engine_questions, kind_questions, list_breaches, long_files, stage_breaches,
};
use crate::graph::{file_cycles, stage_cycles};
use crate::source::{line_counts, resolve, scan, SourceFile};
use crate::tokens::{find_paths, tokenize};
use crate::{manifest_dir, StageList};

fn root() -> std::path::PathBuf {
    manifest_dir().join("tests/data/architecture")
}

fn fixture() -> Vec<SourceFile> {
    scan(&root())
}

/// The fixture's own lists: its imports, but for study importing results unlisted, console
/// listing connection unused, ibench listed without a module and telemetry not listed.
#[rustfmt::skip]
const FIXTURE_RULES: &[StageList] = &[
    ("cli", &["console", "driver", "study"]),
    ("connection", &["server"]),
    ("console", &["connection"]),
    ("cost", &["connection", "study"]),
    ("driver", &["study", "telemetry"]),
    ("engines", &["server"]),
    ("error", &["ibench"]),
    ("ibench", &[]),
    ("probes", &["console"]),
    ("profile", &["cli"]),
    ("report", &["driver", "ibench", "results", "stats"]),
    ("results", &["ibench", "stats", "study"]),
    ("server", &["study"]),
    ("stats", &["probes"]),
    ("study", &["driver"]),
    ("workloads", &["driver", "server"]),
];

/// Compares found breaches with the expected ones, written one per line.
fn assert_lines(found: Vec<String>, expected: &str) {
    assert_eq!(found.join("\n"), expected.trim());
}

#[test]
fn comments_and_literals_are_skipped_but_code_and_lifetimes_kept() {
    let code = r##"a /* x /* y */ z */ b // c
fn f<'a>(s: &'a str) { '"'; '\''; r#"q"#; b"p"; "s\"t"; d }"##;
    let kept = "a b fn f<'a>(s: &'a str) { ; ; ; b ; ; d }";
    assert_eq!(tokenize(code), tokenize(kept));
}

#[test]
fn grouped_and_nested_paths_give_one_path_per_name() {
    let code = "use crate::{a::X, b::{self, c::{Y as Z, *}}}; let v = super::super::d::e(1);";
    let paths = find_paths(&tokenize(code));
    let paths: Vec<String> = paths.into_iter().map(|(p, _)| p.join("::")).collect();
    let expected = "crate::a::X, crate::b, crate::b::c::Y, crate::b::c, super::super::d::e";
    assert_eq!(paths.join(", "), expected);
}

#[test]
fn super_climbs_from_the_module_a_file_defines() {
    let split = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    // Modules w::s (src/w/s/mod.rs) and w::s::o (src/w/s/o.rs).
    let cases = [
        // From a mod.rs, super is w and super::super the crate root.
        ("w::s", "super::super::x::E", 0, Some("x::E")),
        // From o.rs, super is w::s: it takes a third super to leave w.
        ("w::s::o", "super::super::r::Z", 0, Some("w::r::Z")),
        ("w::s::o", "super::super::super::x::R", 0, Some("x::R")),
        // Inside one inline `mod tests { .. }`, the first super is the file itself.
        ("w::s::o", "super::f", 1, None),
        ("w::s::o", "super::super::Opt", 1, Some("w::s::Opt")),
    ];
    for (module, written, inline, want) in cases {
        let got = resolve(&split(module), &split(written), inline).map(|p| p.join("::"));
        assert_eq!(got.as_deref(), want, "{written} from {module}");
    }
}

#[test]
fn fixture_stage_breaches_are_exactly_these() {
    // Not found: the paths in comments and strings of src/results/mod.rs, the crate roots,
    // cli's imports, report's imports of results and stats, `use super::*` in server, and
    // engines' import of server.
    let expected = "
src/connection/mod.rs: connection must not import server (crate::server::Endpoint)
src/cost/mod.rs: cost must not import study (crate::study::Plan)
src/driver/mod.rs: telemetry is not a stage in the rule list; add it to RULES in tests/architecture.rs (crate::telemetry::Span)
src/error.rs: error must not import ibench (crate::ibench::Step)
src/probes/mod.rs: probes must not import console (crate::console::Term)
src/profile/mod.rs: profile must not import cli (crate::cli::Args)
src/report/b.rs: report must not import ibench (crate::ibench::buckets::Bucket)
src/report/b.rs: report must not import ibench (crate::ibench::buckets::Span)
src/report/x.rs: report must not import driver (crate::driver::B)
src/results/mod.rs: results must not import ibench (crate::ibench::TARGET_SHARE)
src/results/mod.rs: results must not import stats (crate::stats::median)
src/results/mod.rs: results must not import study (crate::study::Study)
src/server/mod.rs: server must not import study (super::super::study::Study::default)
src/stats/mod.rs: stats must not import probes (psbench::probes::Cpu)
src/telemetry/mod.rs: telemetry is not a stage in the rule list; add it to RULES in tests/architecture.rs
src/workloads/sysbench/mod.rs: workloads must not import server (super::super::server::Endpoint)
src/workloads/sysbench/oltp.rs: workloads must not import driver (super::super::super::driver::Run)
";
    assert_lines(stage_breaches(&fixture(), FIXTURE_RULES), expected);
}

#[test]
fn fixture_list_mismatches_are_exactly_these() {
    // Not found: the stages whose lists match their imports, imports of error (no list names
    // it) and imports within a stage (engines/mysql of engines/postgres).
    let expected = r#"
stage console lists connection but does not import it
stage console imports exactly, paste into RULES: ("console", &[]),
stage ibench is in RULES but has no module under src/
stage study imports results but does not list it (src/study/mod.rs: crate::results::Document)
stage study imports exactly, paste into RULES: ("study", &["driver", "results"]),
stage telemetry has no list in RULES
stage telemetry imports exactly, paste into RULES: ("telemetry", &[]),
"#;
    assert_lines(list_breaches(&fixture(), FIXTURE_RULES), expected);
}

#[test]
fn fixture_engine_families_import_each_other_exactly_here() {
    // Not found: both families' imports of what engines/mod.rs shares.
    let expected = "
src/engines/mysql/mod.rs: engines/mysql must not import engines/postgres (super::postgres::Cluster)
src/engines/mysql/threads.rs: engines/mysql must not import engines/postgres (crate::engines::postgres::backends::Dump)
";
    assert_lines(apart_breaches(&fixture()), expected);
}

#[test]
fn fixture_asks_which_engine_exactly_here() {
    // Not found: the same tokens inside src/engines/ and src/connection/, in a comment and a
    // string, and the words that only start like them (PfsFlavour, is_postgres_like,
    // Engine::MySqlish).
    let expected = "
src/workloads/random/mod.rs:6: asks which engine (Flavour::Postgres)
src/workloads/random/mod.rs:7: asks which engine (is_postgres)
";
    assert_lines(engine_questions(&fixture()), expected);
}

#[test]
fn fixture_asks_which_kind_of_workload_exactly_here() {
    // Not found: the same question inside src/workloads/, in a comment, and a word that only
    // starts like it (is_insert_benchmarked).
    let expected = "
src/profile/mod.rs:4: asks which kind of workload (is_insert_benchmark)
src/profile/mod.rs:5: asks which kind of workload (INSERT_BENCHMARK)
";
    assert_lines(kind_questions(&fixture()), expected);
}

#[test]
fn fixture_stage_cycles_are_exactly_these() {
    let expected = "
stage cycle: driver -> study -> driver (via src/driver/mod.rs: crate::study::Study; src/study/mod.rs: crate::driver::Run)
stage cycle: results -> study -> results (via src/results/mod.rs: crate::study::Study; src/study/mod.rs: crate::results::Document)
";
    assert_lines(stage_cycles(&fixture()), expected);
}

#[test]
fn fixture_file_cycles_are_exactly_these() {
    // Not found: report/mod.rs re-exports report/x.rs, which uses super::Shared back.
    let expected = "
file cycle: src/driver/mod.rs -> src/study/mod.rs -> src/driver/mod.rs
file cycle: src/report/a.rs -> src/report/b.rs -> src/report/a.rs
file cycle: src/results/mod.rs -> src/study/mod.rs -> src/results/mod.rs
";
    assert_lines(file_cycles(&fixture()), expected);
}

#[test]
fn fixture_long_files_are_exactly_these() {
    // Not found: src/stats/exact.rs, at exactly 600 lines, and tests/data/long.rs, a fixture.
    let expected = "
src/stats/long.rs: 601 lines, over the 600-line limit
tests/long.rs: 601 lines, over the 600-line limit
";
    assert_lines(long_files(&line_counts(&root())), expected);
}
