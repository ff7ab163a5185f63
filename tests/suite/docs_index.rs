//! docs/README.md's command index against the command tree clap builds: every command and
//! subcommand, and every option of the commands whose page is that index, appears in one of
//! its example lines. A command added without a line there fails here.

use clap::CommandFactory;
use psbench::cli::Cli;

const INDEX: &str = include_str!("../../docs/README.md");

/// The index's example lines: those of its code blocks that start with `psbench `.
fn example_lines() -> Vec<&'static str> {
    INDEX
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("psbench "))
        .collect()
}

/// Every command path below the root ("run", "history check", …), with its clap command.
fn paths(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, clap::Command)>) {
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" || sub.is_hide_set() {
            continue;
        }
        let path = format!("{prefix}{}", sub.get_name()).trim().to_string();
        out.push((path.clone(), sub.clone()));
        paths(sub, &format!("{path} "), out);
    }
}

/// Whether an example line runs `path`: its words after `psbench` start with the path's,
/// options with their values allowed between ("psbench --home H history check").
fn runs(line: &str, path: &str) -> bool {
    let mut words = Vec::new();
    let mut tokens = line.split_whitespace().skip(1);
    while let Some(t) = tokens.next() {
        if t == "--home" || t == "--history" {
            tokens.next(); // the global option's value
        } else if !t.starts_with('-') {
            words.push(t);
        }
    }
    let want: Vec<&str> = path.split(' ').collect();
    words.len() >= want.len() && words[..want.len()] == want[..]
}

/// Commands whose options docs/README.md alone lists; `run`'s are docs/study-file.md's, the
/// workloads' (`bench`) docs/workloads.md's and docs/sysbench-compat.md's, `sandbox`'s
/// docs/sandboxes.md's, `history`'s docs/history.md's.
const OPTIONS_HERE: &[&str] = &["build", "report", "studies", "check"];

#[test]
fn every_command_and_subcommand_has_a_line_in_the_docs_index() {
    let lines = example_lines();
    assert!(lines.len() > 30, "the index's example lines: {lines:?}");
    let mut all = Vec::new();
    paths(&Cli::command(), "", &mut all);
    assert!(
        all.len() > 20,
        "the command tree: {:?}",
        all.iter().map(|a| &a.0).collect::<Vec<_>>()
    );
    let mut missing = Vec::new();
    for (path, cmd) in &all {
        let mine: Vec<&&str> = lines.iter().filter(|l| runs(l, path)).collect();
        if mine.is_empty() {
            missing.push(format!("psbench {path}"));
            continue;
        }
        if !OPTIONS_HERE.contains(&path.as_str()) {
            continue;
        }
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if arg.is_global_set() || arg.is_hide_set() || ["help", "version"].contains(&long) {
                continue;
            }
            let flag = format!("--{long}");
            let shown = mine.iter().any(|l| {
                l.split_whitespace()
                    .any(|w| w == flag || w.starts_with(&format!("{flag}=")))
            });
            if !shown {
                missing.push(format!("psbench {path} {flag}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/README.md's command index has no example line for: {}",
        missing.join(", ")
    );
}

#[test]
fn the_index_reads_a_command_only_where_a_line_runs_it() {
    // The matcher itself: a subcommand's name as a value elsewhere is not its line.
    assert!(runs("psbench history check", "history check"));
    assert!(runs(
        "psbench --history h.sqlite history check",
        "history check"
    ));
    assert!(!runs("psbench history", "history check"));
    assert!(!runs("psbench run check", "check"));
}

/// The rows of docs/README.md's "Expected times" table: (study, what `--plan` says).
fn expected_rows() -> Vec<(String, String)> {
    let table = INDEX
        .split("## Expected times")
        .nth(1)
        .expect("docs/README.md has an Expected times section");
    table
        .lines()
        .skip_while(|l| !l.starts_with("| study |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            (cells[0].to_string(), cells[1].to_string())
        })
        .collect()
}

#[test]
fn the_expected_times_cover_every_study_psbench_studies_lists() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_psbench"))
        .arg("studies")
        .output()
        .unwrap();
    assert!(out.status.success());
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    // The study lines: between the heading and the scenarios', each "  NAME  description".
    let listed: Vec<String> = listing
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(listed.len() >= 16, "{listing}");
    let rows = expected_rows();
    let named: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    for name in &listed {
        assert!(
            named.contains(&name.as_str()),
            "docs/README.md's Expected times has no row for {name}: {named:?}"
        );
    }
    assert_eq!(
        rows.len(),
        listed.len(),
        "a row for a study psbench does not list: {named:?}"
    );
    // Each row's "--plan says" is the study's own expected_minutes, or says it was never timed.
    for (name, said) in &rows {
        let study = psbench::study::builtin::builtin(name).unwrap();
        match study.expected_minutes {
            Some(m) => assert_eq!(said, &format!("{m:.0} min"), "{name}"),
            None => assert!(said.starts_with("not timed"), "{name}: {said}"),
        }
    }
}
