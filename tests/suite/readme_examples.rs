//! Every `psbench …` line in the shell blocks of the README and of the documentation's index
//! (docs/README.md, which holds the commands the README's first screen leaves out), run as
//! written by bash from a directory of its own with the just-built binary first on the PATH,
//! in their order, the README's first.
//! A line that would start a study runs with `--plan` added (what it would do, nothing
//! started; with `--resume`, what is left); a line that builds or configures a server from
//! source runs with `--source-only` added or in `--configure-only`'s place (the build itself is
//! tested in tests/builds_*.rs). Placeholders
//! stand for what the test makes: `psbench-out/…`, `before/`, `after/` and `shard-*` are
//! results directories made here, `my-study.toml` the README's own study as written (also run
//! once in full, at a tiny size), `/path/mysqld.sock` the
//! socket of the sandbox the examples' own `sandbox start --name bench` line started.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const README: &str = include_str!("../../README.md");
const DOCS_README: &str = include_str!("../../docs/README.md");

/// The examples of both pages, in order.
fn all_examples() -> Vec<String> {
    let mut lines = example_lines(README);
    lines.extend(example_lines(DOCS_README));
    lines
}

/// The README's own study (its ```toml block that opens `# my-study.toml`), as the reader
/// writes it.
fn my_study() -> String {
    common::ci_page::block_of(
        README,
        "toml",
        "my-study.toml: what does flushing the redo log at every commit cost MySQL 8.0.15?",
    )
}

/// A small study for the shards `merge shard-*` joins.
const SHARDED: &str = r#"
name = "sharded"
rounds = 2
threads = [1]
duration = 0.5
warmup = 0.1
[dataset]
table_size = 500
[[variant]]
name = "ps_off"
scenario = "ps_off"
[[variant]]
name = "all_enabled"
scenario = "all_enabled"
[[workload]]
workload = "oltp_point_select"
"#;

/// The `psbench` lines of the README's `sh` blocks, continuation lines joined and trailing
/// comments removed.
fn example_lines(readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in readme.lines() {
        if let Some(lang) = line.strip_prefix("```") {
            in_sh = !in_sh && (lang == "sh" || lang == "bash");
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head.trim());
            pending.push(' ');
            continue;
        }
        pending.push_str(line.trim_start());
        let whole = std::mem::take(&mut pending);
        let command = strip_comment(&whole);
        if command.starts_with("psbench ") || command == "psbench" {
            out.push(command);
        }
    }
    out
}

/// The line without its trailing `# comment` (a `#` after whitespace, outside quotes).
fn strip_comment(line: &str) -> String {
    let mut quote = None;
    let mut prev_space = false;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') if prev_space => return line[..i].trim_end().to_string(),
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    line.trim_end().to_string()
}

/// The line as the test runs it: `--plan` on a study, `--source-only` on a build (not on
/// `build --list` or `build --flag-sets`, which build nothing).
fn as_run(line: &str, socket: Option<&str>) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut l = line.to_string();
    if let Some(s) = socket {
        l = l.replace("/path/mysqld.sock", s);
    }
    match words.get(1).copied() {
        Some("run") if !words.contains(&"--plan") => format!("{l} --plan"),
        Some("build") if words.contains(&"--configure-only") => {
            l.replace("--configure-only", "--source-only")
        }
        Some("build")
            if !words.iter().any(|w| {
                w.starts_with("--list") || ["--flag-sets", "--source-only", "--remove"].contains(w)
            }) =>
        {
            format!("{l} --source-only")
        }
        _ => l,
    }
}

fn fixture() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study/results.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn write_results(dir: &Path, doc: &Value) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("results.json"), doc.to_string()).unwrap();
}

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_psbench"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn shell(cwd: &Path, line: &str) -> Output {
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .arg("-c")
        .arg(line)
        .current_dir(cwd)
        .env("PATH", path)
        .env("PSBENCH_HOME", cwd.join("home"))
        .env("PSBENCH_HISTORY", cwd.join("history.sqlite"))
        // As a Kubernetes Indexed Job of 2 completions would set them.
        .env("JOB_COMPLETION_INDEX", "0")
        .env("PSBENCH_SHARDS", "2")
        .output()
        .unwrap()
}

/// What the README's placeholders stand for, made in `cwd`.
fn make_placeholders(cwd: &Path) {
    std::fs::write(cwd.join("my-study.toml"), my_study()).unwrap();
    std::fs::write(cwd.join("sharded.toml"), SHARDED).unwrap();
    // An interrupted study: the fixture without its last round.
    let mut part = fixture();
    part["finished_unix"] = Value::Null;
    part["cells"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c["round"].as_u64() != Some(2));
    write_results(&cwd.join("psbench-out/pfs-overhead-20261122T070000"), &part);
    write_results(&cwd.join("before"), &fixture());
    // The same study measured again: 10% more throughput in every cell.
    let mut after = fixture();
    for c in after["cells"].as_array_mut().unwrap() {
        if let Some(t) = c["tps"].as_f64() {
            c["tps"] = Value::from(t * 1.1);
        }
    }
    write_results(&cwd.join("after"), &after);
    // Two real shards of the small study, for `merge shard-*`.
    for k in 0..2 {
        let o = shell(
            cwd,
            &format!("psbench run sharded.toml --shard {k}/2 --out shard-{k}"),
        );
        assert!(o.status.success(), "shard {k}: {}", common::text(&o));
    }
    // A series given as CSV for `history changes`: a level, then one 20% higher.
    let mut csv = String::from("value\n");
    for i in 0..24 {
        csv.push_str(&format!(
            "{}\n",
            if i < 12 { 100.0 } else { 120.0 } + (i % 3) as f64
        ));
    }
    std::fs::write(cwd.join("points.csv"), csv).unwrap();
    // A script in pgbench's language and a captured general log, for `bench script` and
    // `bench replay` on the examples' own sandbox (neither needs a table).
    std::fs::write(
        cwd.join("pick.sql"),
        "\\set n random(1, 1000)\nSELECT :n;\n",
    )
    .unwrap();
    std::fs::write(
        cwd.join("capture.log"),
        "mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:\n\
         Tcp port: 0  Unix socket: /tmp/gl/sock\n\
         Time\t\t    Id Command\tArgument\n\
         261207  1:50:28\t     5 Connect\troot@localhost on  using Socket\n\
         \t\t     5 Query\tSELECT 1\n\
         261207  1:50:29\t     5 Query\tSELECT 2\n\
         \t\t     5 Quit\t\n",
    )
    .unwrap();
    // A history to check: a finished study makes one (shards do not).
    let o = shell(cwd, "psbench history import before");
    assert!(o.status.success(), "history import: {}", common::text(&o));
}

#[test]
fn the_readme_names_its_examples_as_the_test_reads_them() {
    let lines = all_examples();
    assert!(lines.contains(&"psbench run".to_string()), "{lines:#?}");
    assert!(lines.contains(&"psbench merge shard-* --out merged".to_string()));
    assert!(lines.len() >= 30, "{lines:#?}");
    assert!(lines.iter().any(|l| l.starts_with(
        "psbench sandbox start --engine postgres --name pg17 --basedir \"$(psbench fetch postgres 17.2.0)\" -o"
    )));
    assert_eq!(
        strip_comment("psbench studies   # built-in studies"),
        "psbench studies"
    );
    assert_eq!(
        as_run("psbench run --resume x", None),
        "psbench run --resume x --plan"
    );
    assert_eq!(as_run("psbench build --list", None), "psbench build --list");
    assert_eq!(
        as_run("psbench build mysql S --configure-only --extra -DX=1", None),
        "psbench build mysql S --source-only --extra -DX=1"
    );
    assert_eq!(
        as_run("psbench build --remove N", None),
        "psbench build --remove N"
    );
    assert_eq!(
        as_run("psbench build --flag-sets", None),
        "psbench build --flag-sets"
    );
}

#[test]
fn every_readme_example_runs_as_written() {
    let tmp = common::tempdir().unwrap();
    let cwd = tmp.path();
    std::fs::create_dir_all(cwd.join("home")).unwrap();
    make_placeholders(cwd);
    let mut socket: Option<String> = None;
    let mut failed = Vec::new();
    let lines = all_examples();
    let build = smallest_build();
    let mut unbuilt = Vec::new();
    for line in &lines {
        let run = match carried(line, build.as_deref(), cwd) {
            Carried::Not => as_run(line, socket.as_deref()),
            Carried::As(run) => run,
            Carried::NoBuild => {
                unbuilt.push(line.clone());
                continue;
            }
        };
        let o = shell(cwd, &run);
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        if run.starts_with("psbench sandbox start --name bench") {
            socket = out
                .lines()
                .find_map(|l| l.trim().strip_prefix("socket"))
                .map(|s| s.trim().to_string());
        }
        if !o.status.success() {
            failed.push(format!(
                "{run}\n  exit {:?}: {}",
                o.status.code(),
                common::text(&o).lines().last().unwrap_or("")
            ));
        }
    }
    // Whatever the README left running.
    let _ = shell(cwd, "psbench sandbox stop bench a b pg pg17");
    assert!(
        failed.is_empty(),
        "{} of {} README examples failed:\n{}",
        failed.len(),
        lines.len(),
        failed.join("\n")
    );
    assert!(
        socket.is_some(),
        "the README's bench sandbox printed no socket"
    );
    if !unbuilt.is_empty() {
        common::require::unmet(
            &format!("no build in psbench's cache for {unbuilt:?}"),
            "bash scripts/test.sh (it imports ../shared/builds), or psbench build import ARCHIVE",
        );
    }
}

/// The build in psbench's cache with the smallest tree (its record's size), for the export
/// and import lines.
fn smallest_build() -> Option<String> {
    let dir = psbench::builds::cache::builds_dir();
    psbench::builds::cache::list(&dir)
        .into_iter()
        .min_by_key(|(_, r)| r.size_bytes)
        .map(|(_, r)| r.name)
}

enum Carried {
    /// Not a line that carries a build.
    Not,
    As(String),
    NoBuild,
}

/// `build export NAME --out DIR` on a real build (uncompressed, `--xz-level 0`: the same
/// archive, sooner) and `build import DIR/*.tar.xz` into a build cache of its own, where the
/// import checks and reads back the build for real.
fn carried(line: &str, build: Option<&str>, cwd: &Path) -> Carried {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.get(1) != Some(&"build")
        || !matches!(words.get(2), Some(&"export" | &"import" | &"--remove"))
    {
        return Carried::Not;
    }
    let Some(name) = build else {
        return Carried::NoBuild;
    };
    let own = cwd.join("imported-builds");
    match words[2] {
        "export" => Carried::As(format!("{} --xz-level 0", line.replace("NAME", name))),
        // Removed from the cache the import line filled, never from the host's.
        "--remove" => Carried::As(format!(
            "PSBENCH_BUILDS={} {}",
            own.display(),
            line.replace("NAME", name)
        )),
        _ => Carried::As(format!("PSBENCH_BUILDS={} {line}", own.display())),
    }
}

#[test]
fn the_readmes_own_study_runs_in_full_at_a_tiny_size() {
    if common::require::cached_release("mysql-8.0.15").is_none() {
        return;
    }
    let tmp = common::tempdir().unwrap();
    let cwd = tmp.path();
    std::fs::write(cwd.join("my-study.toml"), my_study()).unwrap();
    // The README's file, cut to one round of 1-s cells at one thread, with a smaller table.
    let o = shell(
        cwd,
        "psbench run my-study.toml --rounds 1 --time 1 --warmup 0.2 --threads 1 --out out",
    );
    assert!(o.status.success(), "{}", common::text(&o));
    let r = common::results(&cwd.join("out"));
    assert_eq!(r["study"]["schedule"], "alternate");
    for v in ["flush_2", "flush_1"] {
        assert!(
            r["variants"][v]["server_version"]
                .as_str()
                .is_some_and(|s| s.starts_with("8.0.15")),
            "{v}: {}",
            r["variants"][v]
        );
    }
    let flush = |v: &str| r["variants"][v]["variables"]["innodb_flush_log_at_trx_commit"].clone();
    assert_eq!(flush("flush_1"), "1", "{}", r["variants"]["flush_1"]);
    assert_eq!(flush("flush_2"), "2");
    assert_eq!(r["cells"].as_array().unwrap().len(), 2);
}
