//! docs/ci.md's pull-request and settings recipes, run for real: each GitHub workflow and
//! GitLab job is read from the page and its steps run in order, with the built psbench as
//! `psbench` on the PATH, in a fresh git checkout of a head commit with its base commit
//! before it. The base is checked out beside the head by the page's own step; the study file
//! is planned there (`--plan`: both builds). The study's run (two builds and their counts
//! under callgrind, minutes) is played: a results document of the study's variants where the
//! run writes one, and its report. The check then runs as written: exit 0 on equal counts,
//! exit 1 with the regression's line on 5% more point-select instructions. Left out: the
//! install steps (packages and psbench), `actions/checkout` and the caches, whose paths are
//! checked to be psbench's cache's. Every GitHub workflow of the page passes actionlint.

use crate::common;

use common::ci_page::{block_of, parse, Y};
use common::require::{on_path, or_unmet};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const PAGE: &str = include_str!("../../docs/ci.md");
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/report-study/results.json"
);

fn block(lang: &str, name: &str) -> String {
    block_of(PAGE, lang, name)
}

/// Run `script` with bash in `dir`, psbench first on the PATH: its exit code and log.
fn sh(dir: &Path, env: &[(&str, String)], script: &str) -> (i32, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_psbench")).parent().unwrap();
    let o = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .env("PSBENCH_HOME", dir.join(".psbench-home"))
        .env_remove("PSBENCH_HISTORY")
        .envs(env.iter().map(|(k, v)| (*k, v)))
        .output()
        .unwrap();
    (o.status.code().unwrap_or(-1), common::text(&o))
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .args(["-c", "user.name=ci", "-c", "user.email=ci@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", common::text(&o));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// A job's checkout: a MariaDB tree (what psbench tells one by) of two commits, the head's
/// change on top of the base, with the recipe's study and files as the page writes them.
/// The base commit's id.
fn checkout(ws: &Path, r: &Recipe) -> String {
    let study = r.study;
    let head = ws.join("repo");
    std::fs::create_dir_all(head.join("storage/maria")).unwrap();
    std::fs::create_dir_all(head.join("ci")).unwrap();
    std::fs::write(
        head.join("VERSION"),
        "MYSQL_VERSION_MAJOR=10\nMYSQL_VERSION_MINOR=11\nMYSQL_VERSION_PATCH=18\n",
    )
    .unwrap();
    std::fs::write(head.join("storage/maria/ha_maria.cc"), "// the base\n").unwrap();
    std::fs::write(head.join(study), block("toml", study)).unwrap();
    for f in r.files {
        std::fs::write(head.join(f), block("ini", f)).unwrap();
    }
    git(&head, &["init", "-q", "-b", "main"]);
    git(&head, &["add", "-A"]);
    git(&head, &["commit", "-q", "-m", "base"]);
    let base = git(&head, &["rev-parse", "HEAD"]);
    std::fs::write(head.join("storage/maria/ha_maria.cc"), "// the head\n").unwrap();
    git(&head, &["commit", "-q", "-am", "head"]);
    base
}

/// The report fixture's cost counts as the study's variants: `names[0]` the fixture's
/// ps_off (the base), the others its default; point selects of the last times `factor`.
fn document(names: &[&str], factor: f64) -> Value {
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    let mut doc = fixture.clone();
    doc["cells"] = Value::Array(vec![]);
    doc["study"]["mode"] = Value::from("cost");
    doc["study"]["base"] = Value::from(names[0]);
    let template = fixture["study"]["variant"][0].clone();
    doc["study"]["variant"] = Value::Array(
        names
            .iter()
            .map(|n| {
                let mut v = template.clone();
                v["name"] = Value::from(*n);
                v
            })
            .collect(),
    );
    let mut variants = serde_json::Map::new();
    let mut cost = Vec::new();
    for (i, n) in names.iter().enumerate() {
        for key in ["ps_off", "ps_off [cost]"] {
            variants.insert(key.replace("ps_off", n), fixture["variants"][key].clone());
        }
        for c in fixture["cost"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["variant"] == "ps_off")
        {
            let mut c = c.clone();
            c["variant"] = Value::from(*n);
            if i == names.len() - 1 && c["step"] == "point_select" {
                c["ir_per_txn"] = Value::from(c["ir_per_txn"].as_f64().unwrap() * factor);
            }
            cost.push(c);
        }
    }
    doc["variants"] = Value::Object(variants);
    doc["cost"] = Value::Array(cost);
    doc
}

/// In place of `psbench run STUDY --out DIR`: `doc` written as DIR's results and reported.
fn instead_of_the_run(command: &str, study: &str, doc: &Value, dir: &Path) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    assert!(
        words.starts_with(&["psbench", "run", study]),
        "not the study's run: {command}"
    );
    let out = words[words.iter().position(|w| *w == "--out").unwrap() + 1];
    let file = dir.join("played.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    format!(
        "mkdir -p {out}\ncp {} {out}/results.json\npsbench report {out} >/dev/null\n",
        file.display()
    )
}

/// A recipe: its study file and its variants, the base first.
struct Recipe {
    study: &'static str,
    variants: &'static [&'static str],
    /// The page's configuration files the study names, committed beside it.
    files: &'static [&'static str],
}

/// GitHub's workflow on one pull request whose counts are `doc`'s: exit code and log.
fn github(tmp: &Path, r: &Recipe, workflow: &str, doc: &Value) -> (i32, String, PathBuf) {
    let base = checkout(tmp, r);
    let head = tmp.join("repo");
    let wf = parse(&block("yaml", workflow));
    let job = wf.at("jobs").at("cost");
    assert_eq!(job.at("defaults").at("run").at("shell").str(), "bash");
    let (mut code, mut log) = (0, String::new());
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
                "actions/cache" => {
                    let path = step.at("with").at("path").str();
                    assert!(path.contains("/var/cache/psbench/"), "{path}");
                }
                "actions/upload-artifact" => {
                    for p in step
                        .at("with")
                        .at("path")
                        .str()
                        .lines()
                        .filter(|p| !p.trim().is_empty())
                    {
                        assert!(
                            head.join(p.trim()).exists(),
                            "the upload's {p} is missing:\n{log}"
                        );
                    }
                }
                other => panic!("docs/ci.md uses {other}, which this test does not play"),
            }
            continue;
        }
        if ["Install git", "Install psbench"].contains(&name) {
            continue;
        }
        let run = step.at("run").str();
        let env: Vec<(&str, String)> = match step.get("env") {
            Some(e) => e
                .map()
                .iter()
                .map(|(k, v)| match v.str() {
                    "${{ github.event.pull_request.base.sha }}" => (k.as_str(), base.clone()),
                    other => panic!("a value this test does not know: {k}: {other}"),
                })
                .collect(),
            None => Vec::new(),
        };
        let script = match run.starts_with("psbench run ") {
            true => {
                // First what the study would do, as the page writes it: both builds.
                let (c, plan) = sh(&head, &[], &format!("{} --plan", run.trim()));
                assert_eq!(c, 0, "{plan}");
                log += &plan;
                instead_of_the_run(run, r.study, doc, tmp)
            }
            false => run.to_string(),
        };
        let (c, out) = sh(&head, &env, &script);
        log += &format!("$ {}\n{out}", script.trim());
        if code == 0 {
            code = c;
        }
    }
    (code, log, head)
}

/// GitLab's job on one merge request whose counts are `doc`'s.
fn gitlab(tmp: &Path, r: &Recipe, name: &str, job_name: &str, doc: &Value) -> (i32, String) {
    let base = checkout(tmp, r);
    let head = tmp.join("repo");
    let y = parse(&block("yaml", name));
    let job = y.at(job_name);
    let env = vec![("CI_MERGE_REQUEST_DIFF_BASE_SHA", base)];
    let mut script = String::new();
    for line in job.at("before_script").list() {
        let l = line.str();
        if l.starts_with("git worktree ") {
            script += &format!("{l}\n");
        } else {
            assert!(
                ["apt-get ", "git clone ", "setup.sh"]
                    .iter()
                    .any(|w| l.contains(w)),
                "a before_script line this test does not know: {l}"
            );
        }
    }
    for line in job.at("script").list() {
        let l = line.str();
        script += &match l.starts_with("psbench run ") {
            true => instead_of_the_run(l, r.study, doc, tmp),
            false => format!("{l}\n"),
        };
    }
    let (code, log) = sh(&head, &env, &script);
    assert_eq!(job.at("artifacts").at("when").str(), "always");
    for p in job.at("artifacts").at("paths").list() {
        assert!(
            head.join(p.str()).exists(),
            "the artifact {} is missing:\n{log}",
            p.str()
        );
    }
    (code, log)
}

const PR: Recipe = Recipe {
    study: "ci/psbench-pr.toml",
    variants: &["base", "head"],
    files: &[],
};
const SETTINGS: Recipe = Recipe {
    study: "ci/psbench-settings.toml",
    variants: &["today", "proposed_cnf", "upgrade"],
    files: &["ci/my.cnf", "ci/proposed.cnf"],
};

fn regression(log: &str) -> Option<&str> {
    log.lines().find(|l| l.starts_with("regression: "))
}

/// Equal counts pass; 5% more point-select instructions in the last variant fail, naming it.
fn passes_equal_and_fails_five_percent_more(r: &Recipe, job: impl Fn(&Value) -> (i32, String)) {
    for (factor, code) in [(1.0, 0), (1.05, 1)] {
        let (c, log) = job(&document(r.variants, factor));
        assert_eq!(c, code, "{log}");
        match code {
            0 => assert!(
                regression(&log).is_none() && log.contains(": 0 regression(s)"),
                "{log}"
            ),
            _ => {
                let line = regression(&log).unwrap_or_else(|| panic!("{log}"));
                let last = r.variants[r.variants.len() - 1];
                assert!(
                    line.starts_with(&format!("regression: {last} point_select: instructions per transaction +5.0% against {}'s", r.variants[0]))
                        && line.ends_with("beyond 1.0%"),
                    "{line}"
                );
                println!("{line}");
            }
        }
    }
}

#[test]
fn the_pull_request_workflow_plans_both_builds_passes_equal_counts_and_fails_a_rise() {
    let tmp = common::tempdir().unwrap();
    let (code, log, head) = github(
        tmp.path(),
        &PR,
        ".github/workflows/psbench-pr.yml",
        &document(PR.variants, 1.0),
    );
    assert_eq!(code, 0, "{log}");
    // The page's step checked the base out beside the head, and the plan builds each.
    assert_eq!(
        git(&head.join("../base"), &["log", "-1", "--format=%s"]),
        "base"
    );
    assert!(
        log.contains("a build of ../base with flags release")
            && log.contains("a build of . with flags release"),
        "{log}"
    );
    passes_equal_and_fails_five_percent_more(&PR, |d| {
        let tmp = common::tempdir().unwrap();
        let (c, l, _) = github(tmp.path(), &PR, ".github/workflows/psbench-pr.yml", d);
        (c, l)
    });
}

#[test]
fn the_merge_request_job_passes_equal_counts_and_fails_a_rise() {
    passes_equal_and_fails_five_percent_more(&PR, |d| {
        let tmp = common::tempdir().unwrap();
        gitlab(
            tmp.path(),
            &PR,
            ".gitlab-ci.yml: merge requests",
            "psbench-mr",
            d,
        )
    });
}

#[test]
fn the_settings_recipes_pass_equal_counts_and_fail_a_rise() {
    passes_equal_and_fails_five_percent_more(&SETTINGS, |d| {
        let tmp = common::tempdir().unwrap();
        let (c, l, _) = github(
            tmp.path(),
            &SETTINGS,
            ".github/workflows/psbench-settings.yml",
            d,
        );
        (c, l)
    });
    passes_equal_and_fails_five_percent_more(&SETTINGS, |d| {
        let tmp = common::tempdir().unwrap();
        gitlab(
            tmp.path(),
            &SETTINGS,
            ".gitlab-ci.yml: settings",
            "psbench-settings",
            d,
        )
    });
}

#[test]
fn actionlint_passes_every_github_workflow_of_the_page() {
    let cached = psbench::server::fetch::cache_dir().join("tools/actionlint");
    let found = on_path("actionlint").or_else(|| cached.is_file().then(|| cached.clone()));
    let Some(actionlint) = or_unmet(
        found,
        &format!("actionlint is neither on the PATH nor at {}", cached.display()),
        "bash scripts/test.sh (its set-up builds github.com/rhysd/actionlint/cmd/actionlint@v1.7.7 there with Go)",
    ) else {
        return;
    };
    let names: Vec<&str> = PAGE
        .lines()
        .filter_map(|l| l.strip_prefix("# .github/workflows/"))
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path().join(".github/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    for name in names {
        std::fs::write(
            dir.join(name),
            block("yaml", &format!(".github/workflows/{name}")),
        )
        .unwrap();
        let o = Command::new(&actionlint)
            .current_dir(tmp.path())
            .args(["-no-color", "-oneline"])
            .arg(format!(".github/workflows/{name}"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{name}: {}", common::text(&o));
    }
}

#[test]
fn the_settings_recipes_study_and_my_cnf_files_pass_plan_and_a_broken_file_is_named() {
    let tmp = common::tempdir().unwrap();
    let ci = tmp.path().join("ci");
    std::fs::create_dir_all(&ci).unwrap();
    let study = ci.join("psbench-settings.toml");
    std::fs::write(&study, block("toml", SETTINGS.study)).unwrap();
    for f in SETTINGS.files {
        std::fs::write(tmp.path().join(f), block("ini", f)).unwrap();
    }
    let plan = || {
        let (code, log) = sh(
            tmp.path(),
            &[],
            "psbench run ci/psbench-settings.toml --plan",
        );
        (code, log)
    };
    let (code, log) = plan();
    assert_eq!(code, 0, "{log}");
    std::fs::write(
        ci.join("proposed.cnf"),
        "[mysqld]\ninnodb_adaptive_hash_index = 'OFF\n",
    )
    .unwrap();
    let (code, log) = plan();
    assert_eq!(code, 2, "{log}");
    assert!(
        log.contains("proposed.cnf:2: a quoted value without its closing '"),
        "{log}"
    );
}
