//! Mistakes on the command line and in study files, on the built binary: each is caught
//! before anything starts, printed as `psbench: error: …` lines (every mistake of a study file
//! at once, with its line) with the nearest name where one is close, and exits with code 2.

use std::path::Path;
use std::process::{Command, Output};

/// psbench with its home in `dir`, which no mistake may create.
fn psbench(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_psbench"));
    c.env("PSBENCH_HOME", dir.join("home"))
        .env("PSBENCH_HISTORY", dir.join("history.sqlite"))
        .current_dir(dir);
    c
}

/// Runs psbench in a fresh directory (with `files` written there) and returns its stderr,
/// after checking exit code 2, nothing on stdout and nothing started.
fn mistake(args: &[&str], files: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let o: Output = psbench(dir.path()).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        o.stdout.is_empty(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(
        !dir.path().join("home").exists(),
        "{args:?}: something started"
    );
    err
}

fn one_line(args: &[&str]) -> String {
    let err = mistake(args, &[]);
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    err.trim_end().to_string()
}

#[test]
fn clap_s_mistakes_are_one_line_with_exit_2() {
    assert_eq!(
        one_line(&["run", "--round", "5"]),
        "psbench: error: unknown option `--round`; did you mean `--rounds`?"
    );
    assert_eq!(
        one_line(&["run", "--threads", "abc"]),
        "psbench: error: invalid value `abc` for `--threads <THREADS>`: invalid digit found in string"
    );
    assert_eq!(
        one_line(&["compare", "DIR"]),
        "psbench: error: missing required argument `<B>`"
    );
    assert_eq!(
        one_line(&["rnu"]),
        "psbench: error: unknown command `rnu`; did you mean `run`?"
    );
    assert_eq!(
        one_line(&["sandbox", "strat"]),
        "psbench: error: unknown command `strat`; did you mean `start`?"
    );
    assert_eq!(
        one_line(&["run", "--resume", "x", "--out", "y"]),
        "psbench: error: `--resume <RESUME>` cannot be used with `--out <OUT>`"
    );
    assert_eq!(
        one_line(&["run", "--cost=maybe"]),
        "psbench: error: unexpected value 'maybe' for '--cost' found; no more were expected"
    );
}

#[test]
fn help_and_version_are_clap_s_own_with_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--help"][..],
        &["-h"],
        &["--version"],
        &["help"],
        &["run", "--help"],
    ] {
        let o = psbench(dir.path()).args(args).output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(o.stderr.is_empty(), "{args:?}");
        assert!(
            out.contains("Usage: psbench") || out.starts_with("psbench 0."),
            "{out}"
        );
    }
}

#[test]
fn a_mistyped_study_variant_or_workload_step_names_the_nearest() {
    assert_eq!(
        one_line(&["run", "pfs-overhaed"]),
        "psbench: error: unknown study 'pfs-overhaed'; did you mean `pfs-overhead`? (not a file, \
         and not a built-in study: `psbench studies` lists them)"
    );
    assert_eq!(
        one_line(&["run", "--variants", "ps_of"]),
        "psbench: error: --variants: no variant 'ps_of' in study pfs-overhead; did you mean \
         `ps_off`? (it has: ps_off, default, all_enabled, all_disabled, mdl_only, memory_only, \
         stages_statements, stages_only, statements_only, waits_only, global_only, userstat)"
    );
    // A negative number is a value, not an option; an empty item of a list is said as typed.
    assert_eq!(
        one_line(&["run", "--time", "-1"]),
        "psbench: error: --time must be more than 0 seconds (got -1)"
    );
    assert_eq!(
        one_line(&["run", "--threads", "1,,4"]),
        "psbench: error: invalid value `1,,4` for `--threads <THREADS>`: an empty item in the \
         list (separate the items by single commas)"
    );
    // Only one variant left: nothing to compare it with.
    assert_eq!(
        one_line(&["run", "--variants", "default"]),
        "psbench: error: --variants default: nothing to compare: one variant is its own base \
         (give it with another, e.g. --variants ps_off,default)"
    );
    assert_eq!(
        one_line(&["run", "--workloads", "point_selct"]),
        "psbench: error: --workloads: no workload step 'point_selct' in study pfs-overhead; did \
         you mean `point_select`? (it has: point_select, read_only, read_write)"
    );
    // Nothing near: the list alone.
    assert!(one_line(&["run", "tpcc"])
        .starts_with("psbench: error: unknown study 'tpcc': not a file, and not one of the built-in studies (pfs-overhead, "));
    assert!(one_line(&["bench", "oltp_point_selct", "run"]).starts_with(
        "psbench: error: unknown workload 'oltp_point_selct'; did you mean `oltp_point_select`? (valid workloads: "
    ));
}

const MANY: &str = r#"name = "t"
thread = [1, 4]
rounds = 0
duraton = 5
[[variant]]
name = "off"
scenario = "ps_of"
[[variant]]
name = "on"
settings = "durabel"
[[workload]]
workload = "oltp_point_selct"
"#;

#[test]
fn every_mistake_of_a_study_file_is_a_line_with_its_line_number() {
    let err = mistake(&["run", "s.toml"], &[("s.toml", MANY)]);
    let lines: Vec<&str> = err.lines().collect();
    let scenarios = "ps_off, default, all_disabled, consumers_off, all_enabled, mdl_only, \
                     memory_only, stages_statements, stages_only, statements_only, waits_only, \
                     global_only, default_nodigest, userstat, sql_all_disabled, sql_all_enabled, \
                     sql_mdl_only, sql_memory_only, sql_stages_statements, sql_stages_only, \
                     sql_statements_only, sql_waits_only, every_instrument_all_consumers, \
                     every_instrument_global_only, every_instrument_no_consumer";
    let workload = "psbench: error: s.toml, line 12: unknown workload 'oltp_point_selct'; did \
                    you mean `oltp_point_select`? (known: oltp_point_select, ";
    assert_eq!(lines.len(), 6, "{err}");
    assert_eq!(
        lines[..5],
        [
            "psbench: error: s.toml, line 2: unknown key `thread`; did you mean `threads`?",
            "psbench: error: s.toml, line 3: rounds must be at least 1",
            "psbench: error: s.toml, line 4: unknown key `duraton`; did you mean `duration`?",
            &format!(
                "psbench: error: s.toml, line 7: variant 'off': unknown scenario 'ps_of'; did you \
                 mean `ps_off`? (known: {scenarios})"
            ),
            "psbench: error: s.toml, line 10: variant 'on': settings preset 'durabel' is unknown; \
             did you mean `durable`? (known: durable)",
        ]
    );
    assert!(lines[5].starts_with(workload), "{err}");
}

#[test]
fn values_of_the_wrong_type_are_all_reported_with_unknown_keys() {
    let text = "name = \"t\"\nrounds = \"three\"\nwarmup = \"1s\"\n[[variant]]\nname = \"off\"\n\
                [dataset]\ntable = 3\n[[workload]]\nworkload = \"oltp_point_select\"\nthreads = 4\n";
    let err = mistake(&["run", "s.toml"], &[("s.toml", text)]);
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            "psbench: error: s.toml, line 2: `rounds`: invalid type: string \"three\", expected u32",
            "psbench: error: s.toml, line 3: `warmup`: invalid type: string \"1s\", expected f64",
            "psbench: error: s.toml, line 7: unknown key `table` in [dataset]; did you mean `tables`?",
            "psbench: error: s.toml, line 10: `threads`: invalid type: integer `4`, expected a sequence",
        ]
    );
    // A syntax error is the one mistake: the rest of the file cannot be read.
    let err = mistake(&["run", "s.toml"], &[("s.toml", "name = [\nthread = 1\n")]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("psbench: error: s.toml, line "), "{err}");
}

const TWO_ROUNDS: &str = "name = \"t\"\nrounds = 2\n[[variant]]\nname = \"a\"\n[[workload]]\nworkload = \"oltp_point_select\"\n";

/// `--locate` on a study without a sweep is a mistake found after the overrides: it shows their
/// warnings without starting anything.
const NO_SWEEP: &str = "measured in cost mode to locate changes in";

#[test]
fn fewer_than_3_rounds_of_throughput_are_warned_about() {
    let warning = |from: &str| {
        format!(
            "psbench: warning: {from}: fewer than 3 rounds can resolve no throughput difference \
             (an interval needs 2 rounds, a verdict 3): every throughput comparison will say not \
             resolved"
        )
    };
    let err = mistake(&["run", "--rounds", "2", "--locate"], &[]);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert_eq!(lines[0], warning("--rounds 2"));
    assert!(lines[1].ends_with(NO_SWEEP), "{err}");
    let err = mistake(&["run", "s.toml", "--locate"], &[("s.toml", TWO_ROUNDS)]);
    assert_eq!(
        err.lines().next().unwrap(),
        warning("study t has rounds = 2")
    );
    // Cost mode counts instructions, the same in every round: no warning.
    let err = mistake(&["run", "--cost", "--rounds", "1", "--locate"], &[]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.trim_end().ends_with(NO_SWEEP), "{err}");
    // Enough rounds: no warning either.
    let err = mistake(&["run", "--rounds", "3", "--locate"], &[]);
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// The study's own `threads = [0]` is named at its line, not at a workload that inherits it;
/// a workload's own list is named at the workload.
#[test]
fn a_thread_count_of_0_is_named_where_it_is_written() {
    let study = "name = \"t\"\nbase = \"a\"\nthreads = [0]\n[[variant]]\nname = \"a\"\n\
                 [[variant]]\nname = \"b\"\nscenario = \"default\"\n[[workload]]\n\
                 workload = \"oltp_point_select\"\n";
    assert_eq!(
        mistake(&["run", "s.toml", "--plan"], &[("s.toml", study)]).trim_end(),
        "psbench: error: s.toml, line 3: thread counts must be at least 1 (got [0])"
    );
    let own = study.replace("threads = [0]\n", "") + "threads = [1, 0]\n";
    assert_eq!(
        mistake(&["run", "s.toml", "--plan"], &[("s.toml", &own)]).trim_end(),
        "psbench: error: s.toml, line 9: workload 'point_select': thread counts must be at least 1 (got [1, 0])"
    );
}

/// A my.cnf or a postgresql.conf given as the study: what it is and where it goes.
#[test]
fn a_server_configuration_given_as_a_study_says_where_it_belongs() {
    let cnf = "# tuned\n[mysqld]\ninnodb_buffer_pool_size=1G\n";
    assert_eq!(
        mistake(&["run", "my.cnf", "--plan"], &[("my.cnf", cnf)]).trim_end(),
        "psbench: error: my.cnf is a my.cnf (its first group is [mysqld]), not a study file: \
         name it in a MySQL or MariaDB variant as defaults_file = \"my.cnf\" (docs/study-file.md, \
         \"Your own configuration file\")"
    );
    let pg = "shared_buffers = 128MB\n";
    let err = mistake(&["run", "postgresql.conf"], &[("postgresql.conf", pg)]);
    assert!(
        err.contains("is a postgresql.conf, not a study file")
            && err.contains("config_file = \"postgresql.conf\""),
        "{err}"
    );
}
