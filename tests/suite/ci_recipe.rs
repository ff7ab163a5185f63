//! docs/ci.md's CI gate, run for real: the GitHub workflow and the GitLab job are read from
//! the page and their shell steps run in order, with the built psbench as `psbench` on the
//! PATH, on real results documents. Each job runs in a fresh directory with its own psbench
//! home; only the history goes from one job to the next, as the cache carries it.
//!
//! Run as written: GitHub's "Check against the history" and "Write the history page", GitLab's
//! `script` (its check) and `after_script`. Played by the test: `actions/cache` and GitLab's
//! cache (the history copied in before the steps, and back only after a job that passed, as
//! both save only then), and the artifact uploads (every path they name must exist).
//! Left out: "Install git", "Install psbench", GitLab's `before_script` (they install packages
//! and psbench), `actions/checkout`, and the study's run, `psbench run ... --cost --out DIR`,
//! which builds a server from source and counts under callgrind for minutes. In its place the
//! test writes a results document into DIR and does what the run does once it has measured:
//! `psbench report DIR` and `psbench history import DIR`. The document is
//! tests/data/report-study's without its throughput cells (a `--cost` run has none), a day
//! later each job, its default point-select count as the job needs.
//!
//! The study file is planned (`--plan`) on MariaDB's source from psbench's cache, and the
//! workflow linted with actionlint, which `bash scripts/setup.sh` installs.

use crate::common;

use common::require::{on_path, or_unmet};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const PAGE: &str = include_str!("../../docs/ci.md");
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/report-study/results.json"
);
/// GitHub's steps that install rather than gate, and the one the test runs itself.
const LEFT_OUT: [&str; 2] = ["Install git", "Install psbench"];
const RUN_AS_WRITTEN: [&str; 2] = ["Check against the history", "Write the history page"];
const STUDY_RUN: &str = "Count instructions per transaction";

use common::ci_page::{parse, Y};

/// The page's fenced block in `lang` whose first line is `# NAME`.
fn block(lang: &str, name: &str) -> String {
    common::ci_page::block_of(PAGE, lang, name)
}

/// What each job shares: the psbench to run, the history between jobs, the documents.
struct Ci {
    tmp: tempfile::TempDir,
    jobs: u32,
}

/// One job: its exit code (the first failing step's, else 0) and its log.
struct Job {
    code: i32,
    log: String,
}

impl Ci {
    fn new() -> Ci {
        let tmp = tempfile::tempdir().unwrap();
        for d in ["bin", "cache", "docs"] {
            std::fs::create_dir(tmp.path().join(d)).unwrap();
        }
        std::os::unix::fs::symlink(
            env!("CARGO_BIN_EXE_psbench"),
            tmp.path().join("bin/psbench"),
        )
        .unwrap();
        Ci { tmp, jobs: 0 }
    }

    /// A fresh job directory, as a new runner gets.
    fn workspace(&mut self) -> PathBuf {
        self.jobs += 1;
        let ws = self.tmp.path().join(format!("job{}", self.jobs));
        std::fs::create_dir(&ws).unwrap();
        ws
    }

    /// The fixture as a `--cost` run would write it `days` later, default's point-select
    /// count times `factor`.
    fn document(&self, days: u64, factor: f64) -> PathBuf {
        let mut doc: Value =
            serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
        doc["cells"] = Value::Array(vec![]);
        doc["study"]["mode"] = Value::from("cost");
        for key in ["started_unix", "finished_unix"] {
            doc[key] = Value::from(doc[key].as_u64().unwrap() + days * 86_400);
        }
        for c in doc["cost"].as_array_mut().unwrap() {
            if c["variant"] == "default" && c["step"] == "point_select" {
                c["ir_per_txn"] = Value::from(c["ir_per_txn"].as_f64().unwrap() * factor);
            }
        }
        let file = self.tmp.path().join(format!("docs/day{days}.json"));
        std::fs::write(&file, doc.to_string()).unwrap();
        file
    }

    /// The cache's restore: the saved files into `dir`.
    fn restore(&self, dir: &Path) {
        copy_files(&self.tmp.path().join("cache"), dir);
    }

    /// The cache's save: `dir`'s files replace the saved ones.
    fn save(&self, dir: &Path) {
        let cache = self.tmp.path().join("cache");
        std::fs::remove_dir_all(&cache).unwrap();
        copy_files(dir, &cache);
    }

    /// A shell script of the job in `ws`, run as the CI service runs it.
    fn sh(&self, ws: &Path, env: &[(String, String)], script: &str, shell: &[&str]) -> Job {
        let file = ws.join(format!(".step{}.sh", ws.read_dir().unwrap().count()));
        std::fs::write(&file, script).unwrap();
        let path = format!(
            "{}:{}",
            self.tmp.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let o = Command::new(shell[0])
            .args(&shell[1..])
            .arg(&file)
            .current_dir(ws)
            .env_remove("PSBENCH_HISTORY")
            .env("PSBENCH_HOME", ws.join("home"))
            .env("PATH", path)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        Job {
            code: o.status.code().unwrap_or(-1),
            log: format!(
                "$ {}\n{}{}",
                script.trim(),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        }
    }
}

fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
    }
}

/// The study's run, replaced: the document where `psbench run ... --out DIR` writes one, and
/// what the run does with it once measured.
fn instead_of_the_run(command: &str, doc: &Path) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    assert!(
        words.starts_with(&["psbench", "run", "ci/psbench-gate.toml", "--cost"]),
        "not the study's run: {command}"
    );
    let out = words[words.iter().position(|w| *w == "--out").unwrap() + 1];
    format!(
        "mkdir -p {out}\ncp {} {out}/results.json\npsbench report {out} >/dev/null\npsbench history import {out}\n",
        doc.display()
    )
}

/// A job's or step's variables: the page's values, or what the service would fill in.
fn vars(map: &Y, accept: &str) -> Vec<(String, String)> {
    let value = |k: &str, v: &str| match (k, v) {
        ("ACCEPT_WHY", "${{ inputs.accept }}") => accept.to_string(),
        ("ACCEPT_BY", "${{ github.actor }}" | "$GITLAB_USER_LOGIN") => "ci-test".to_string(),
        // Where builds keep ccache's objects: nothing is built here.
        ("PSBENCH_CACHE", _) => String::new(),
        _ if !v.contains('$') => v.to_string(),
        _ => panic!("a value this test does not know: {k}: {v}"),
    };
    let entries = map.map().iter();
    entries
        .map(|(k, v)| (k.clone(), value(k, v.str())))
        .collect()
}

/// Every path an upload names exists.
fn uploaded(ws: &Path, paths: &str, log: &str) {
    for p in paths.lines().map(str::trim).filter(|p| !p.is_empty()) {
        let p = p.trim_end_matches('/');
        assert!(ws.join(p).exists(), "the upload's {p} is missing:\n{log}");
    }
}

/// GitHub's workflow, one push: `accept` is the `accept` input of a run by hand.
fn github(ci: &mut Ci, doc: &Path, accept: &str) -> Job {
    let wf = parse(&block("yaml", ".github/workflows/psbench-gate.yml"));
    let job = wf.at("jobs").at("gate");
    assert_eq!(job.at("defaults").at("run").at("shell").str(), "bash");
    let shell = ["bash", "--noprofile", "--norc", "-eo", "pipefail"];
    let ws = ci.workspace();
    let job_env = vars(job.at("env"), accept);
    let (mut code, mut log, mut cached) = (0, String::new(), None);
    for step in job.at("steps").list() {
        let name = step.get("name").map(Y::str).unwrap_or("");
        let always = step
            .get("if")
            .is_some_and(|c| c.str().contains("!cancelled()"));
        if code != 0 && !always {
            continue;
        }
        if let Some(uses) = step.get("uses") {
            match uses.str().split('@').next().unwrap() {
                "actions/checkout" => {}
                "actions/cache" if step.at("with").at("path").str().contains("history") => {
                    let dir = ws.join(step.at("with").at("path").str());
                    ci.restore(&dir);
                    cached = Some(dir);
                }
                // ccache's objects: nothing is built here.
                "actions/cache" => {
                    assert_eq!(
                        step.at("with").at("path").str(),
                        "/var/cache/psbench/ccache"
                    )
                }
                "actions/upload-artifact" => uploaded(&ws, step.at("with").at("path").str(), &log),
                other => panic!("docs/ci.md uses {other}, which this test does not play"),
            }
            continue;
        }
        if LEFT_OUT.contains(&name) {
            continue;
        }
        let mut script = step.at("run").str().to_string();
        if name == STUDY_RUN {
            script = instead_of_the_run(&script, doc);
        } else {
            assert!(
                RUN_AS_WRITTEN.contains(&name),
                "a step this test does not know: {name}"
            );
        }
        let mut env = job_env.clone();
        env.extend(step.get("env").map(|e| vars(e, accept)).unwrap_or_default());
        let ran = ci.sh(&ws, &env, &script, &shell);
        log += &ran.log;
        if code == 0 {
            code = ran.code;
        }
    }
    // actions/cache's post step saves only when the job passed.
    if code == 0 {
        ci.save(&cached.expect("the history is never restored"));
    }
    Job { code, log }
}

/// GitLab's job, one pipeline: `accept` is `ACCEPT_WHY` of a pipeline run by hand.
fn gitlab(ci: &mut Ci, doc: &Path, accept: &str) -> Job {
    let y = parse(&block("yaml", ".gitlab-ci.yml"));
    let job = y.at("psbench-gate");
    let shell = ["bash", "-eo", "pipefail"];
    let ws = ci.workspace();
    let mut env = vars(job.at("variables"), accept);
    if !accept.is_empty() {
        env.push(("ACCEPT_WHY".into(), accept.into()));
    }
    // Two caches: the history's is played; ccache's objects are for builds, not made here.
    let cache = job
        .at("cache")
        .list()
        .iter()
        .find(|c| c.at("key").str().starts_with("psbench-history"))
        .expect("a cache of the history");
    assert!(
        cache.get("when").is_none(),
        "the cache is saved on success only"
    );
    let [dir] = cache.at("paths").list() else {
        panic!("one cached path")
    };
    let dir = ws.join(dir.str());
    ci.restore(&dir);
    // before_script installs psbench: left out.
    for line in job.at("before_script").list() {
        assert!(
            ["apt-get ", "git clone ", "setup.sh"]
                .iter()
                .any(|w| line.str().contains(w)),
            "a before_script line this test does not know: {}",
            line.str()
        );
    }
    // One shell for the whole script, as the runner runs it.
    let script: String = job
        .at("script")
        .list()
        .iter()
        .map(|s| match s.str() {
            s if s.starts_with("psbench run ") => instead_of_the_run(s, doc),
            s => format!("{}\n", s.trim_end()),
        })
        .collect();
    let mut ran = ci.sh(&ws, &env, &script, &shell);
    // after_script runs whatever the script did; its own exit code fails nothing.
    let after: String = job
        .at("after_script")
        .list()
        .iter()
        .map(|s| format!("{}\n", s.str()))
        .collect();
    ran.log += &ci.sh(&ws, &env, &after, &shell).log;
    let artifacts = job.at("artifacts");
    assert_eq!(artifacts.at("when").str(), "always");
    for p in artifacts.at("paths").list() {
        uploaded(&ws, p.str(), &ran.log);
    }
    if ran.code == 0 {
        ci.save(&dir);
    }
    ran
}

fn regression_line(log: &str) -> Option<&str> {
    log.lines().find(|l| l.starts_with("regression: series"))
}

/// The job exited with `code` and its log says `says`.
fn exits(j: &Job, code: i32, says: &str) {
    assert_eq!(j.code, code, "{}", j.log);
    assert!(j.log.contains(says), "{}", j.log);
}

/// The gate over six pushes: a first, the same counts, 5% more point-select instructions
/// (failing, and failing again), accepted by hand, and the new level after.
fn gate(job: fn(&mut Ci, &Path, &str) -> Job) {
    let mut ci = Ci::new();
    let mut push = |days: u64, factor: f64, accept: &str| {
        let doc = ci.document(days, factor);
        job(&mut ci, &doc, accept)
    };
    let checked = |n: u32| {
        format!("{n} series with an earlier point checked in psbench-history/history.sqlite: 0 regressions")
    };

    exits(&push(0, 1.0, ""), 0, &checked(0));
    let j = push(1, 1.0, "");
    exits(&j, 0, &checked(4));
    assert!(regression_line(&j.log).is_none(), "{}", j.log);

    // 5% more: the job fails on the check, with the series that got worse; the failing job's
    // history is not kept, so the next push fails too.
    for days in [2, 3] {
        let j = push(days, 1.05, "");
        exits(&j, 1, "1 regression, 0 improvements");
        let line = regression_line(&j.log).unwrap_or_else(|| panic!("{}", j.log));
        assert!(
            line.contains("(mariadb point_select (cost mode), instructions per transaction)")
                && line.contains(" is +5.0% against "),
            "{line}"
        );
        println!("day {days}: {line}");
    }

    let accepted = "accepted by ci-test: the check compares with the level it starts";
    exits(&push(4, 1.05, "new default instruments"), 0, accepted);
    let j = push(5, 1.05, "");
    exits(&j, 0, &checked(4));
    assert!(regression_line(&j.log).is_none(), "{}", j.log);
}

#[test]
fn the_github_workflow_passes_the_same_counts_and_fails_5_percent_more_until_accepted() {
    gate(github);
}

#[test]
fn the_gitlab_job_passes_the_same_counts_and_fails_5_percent_more_until_accepted() {
    gate(gitlab);
}

#[test]
fn the_study_file_plans_a_build_of_the_checkout_it_runs_in() {
    let tree = psbench::server::fetch::cache_dir().join("sources/mariadb_10.11.18-0+deb12u1/tree");
    let Some(tree) = or_unmet(
        tree.join(".unpacked").is_file().then_some(tree),
        "MariaDB 10.11.18's source is not in psbench's cache",
        "bash scripts/setup.sh (or psbench build mariadb debian:mariadb=1:10.11.18-0+deb12u1 --source-only)",
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let study = tmp.path().join("psbench-gate.toml");
    std::fs::write(&study, block("toml", "ci/psbench-gate.toml")).unwrap();
    // `source = "."`: the directory psbench runs in. --plan starts and writes nothing.
    let o = Command::new(env!("CARGO_BIN_EXE_psbench"))
        .current_dir(&tree)
        .env("PSBENCH_HOME", tmp.path().join("home"))
        .args(["run", study.to_str().unwrap(), "--cost", "--plan"])
        .output()
        .unwrap();
    let out = common::text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("a build of . with flags release"), "{out}");
    assert!(!tree.join("psbench-out").exists());
    assert!(
        out.contains("cost mode: 2 count(s) under callgrind"),
        "{out}"
    );
}

#[test]
fn actionlint_passes_the_github_workflow() {
    let cached = psbench::server::fetch::cache_dir().join("tools/actionlint");
    let found = on_path("actionlint").or_else(|| cached.is_file().then(|| cached.clone()));
    let Some(actionlint) = or_unmet(
        found,
        &format!("actionlint is neither on the PATH nor at {}", cached.display()),
        "bash scripts/setup.sh (it builds github.com/rhysd/actionlint/cmd/actionlint@v1.7.7 there with Go)",
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".github/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    let workflow = block("yaml", ".github/workflows/psbench-gate.yml");
    let lint = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap();
        Command::new(&actionlint)
            .current_dir(tmp.path())
            .args(["-no-color", "-oneline"])
            .arg(format!(".github/workflows/{name}"))
            .output()
            .unwrap()
    };
    let o = lint("psbench-gate.yml", &workflow);
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o));
    // It does read the workflow: a misspelt input is an error.
    let o = lint(
        "broken.yml",
        &workflow.replace("inputs.accept", "inputs.acept"),
    );
    assert_eq!(o.status.code(), Some(1), "{}", common::text(&o));
    assert!(common::text(&o).contains("acept"), "{}", common::text(&o));
}
