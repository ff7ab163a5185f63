//! Studies end to end through the CLI, against real sandboxes.

use crate::common;

use common::{alive, psbench, results, text};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn write_study(dir: &Path, body: &str) -> PathBuf {
    let p = dir.join("study.toml");
    std::fs::write(&p, body).unwrap();
    p
}

/// `psbench run STUDY --out DIR/out` with its own home under `dir`, which must succeed;
/// returns its output and the results directory.
fn run_ok(dir: &Path, study: &Path) -> (String, PathBuf) {
    let out = dir.join("out");
    let o = psbench(&dir.join("home"))
        .arg("run")
        .arg(study)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    (t, out)
}

const TINY: &str = r#"
name = "tiny"
description = "two variants, one step"
mode = "both"
threads = [1, 2]
rounds = 2
duration = 1
warmup = 0.3
[dataset]
table_size = 1000
[cost]
events = [300, 600, 900]
warmup_events = 50
[[variant]]
name = "ps_off"
scenario = "ps_off"
[[variant]]
name = "default"
scenario = "default"
[[workload]]
workload = "oltp_point_select"
"#;

#[test]
fn tiny_study_end_to_end() {
    let tmp = common::tempdir().unwrap();
    let study = write_study(tmp.path(), TINY);
    let (t, out) = run_ok(tmp.path(), &study);
    assert!(
        t.contains("| point_select | 1 |") && t.contains("Cost mode"),
        "{t}"
    );
    // The counts answer before the first throughput round starts, and each round but the
    // last rewrites the report; the finished report no longer says it is running.
    let at = |what: &str| {
        t.find(what)
            .unwrap_or_else(|| panic!("no {what:?} in:\n{t}"))
    };
    assert!(
        at("running: round 1 of 2, about") < at("round 1 ps_off: starting")
            && at("the table at a glance so far (partial)") < at("round 1 ps_off: starting"),
        "{t}"
    );
    assert!(
        at("round 1 of 2 done:") < at("round 2 default: starting"),
        "{t}"
    );
    assert!(!t.contains("round 2 of 2 done"), "{t}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!summary.contains("running:"), "{summary}");
    let r = results(&out);
    assert_eq!(r["format"], "psbench-study");
    assert_eq!(r["cells"].as_array().unwrap().len(), 2 * 2 * 2);
    assert!(r["finished_unix"].as_u64().is_some());
    // Rounds alternate the order: round 1 starts with ps_off, round 2 with default.
    let order: Vec<&str> = r["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["variant"].as_str().unwrap())
        .collect();
    assert_eq!(order[0], "ps_off");
    assert_eq!(order[4], "default");
    for c in r["cells"].as_array().unwrap() {
        assert!(c["ok"].as_bool().unwrap());
        assert!(c["tps"].as_f64().unwrap() > 100.0);
        assert!(c["resources"]["server_cpu_us_per_txn"].as_f64().unwrap() > 1.0);
        assert_eq!(
            c["resources"]["status_per_txn"]["Com_select"]
                .as_f64()
                .unwrap()
                .round(),
            1.0
        );
    }
    // The PFS variant was verified and its provenance recorded.
    let pfs = &r["variants"]["default"]["pfs"];
    assert_eq!(pfs["enabled"], true);
    assert_eq!(pfs["consumers_on"].as_array().unwrap().len(), 3);
    assert_eq!(
        r["variants"]["ps_off"]["variables"]["performance_schema"],
        "OFF"
    );
    // Each variant's server build: the system's MariaDB, named by its Debian package, with
    // the digest the provenance table shows.
    for v in ["ps_off", "default"] {
        let p = &r["variants"][v];
        let b = &p["build"];
        assert_eq!(b["family"], "mysql", "{p}");
        assert_eq!(b["flavour"], "mariadb");
        assert_eq!(b["version"], p["server_version"]);
        assert_eq!(b["binary"], p["server_binary"]);
        assert_eq!(b["sha256"], p["server_sha256"]);
        assert_eq!(b["sha256"].as_str().unwrap().len(), 64);
        assert_eq!(b["origin"]["kind"], "system");
        let package = b["origin"]["package"].as_str().unwrap();
        assert!(package.starts_with("mariadb-server"), "{package}");
    }
    let cost = r["cost"].as_array().unwrap();
    assert_eq!(cost.len(), 2);
    let ir = |v: &str| {
        cost.iter().find(|c| c["variant"] == v).unwrap()["ir_per_txn"]
            .as_f64()
            .unwrap()
    };
    assert!(
        ir("default") > ir("ps_off"),
        "PFS default costs instructions"
    );
    // `report` renders the same document again.
    let rep = psbench(&tmp.path().join("home"))
        .arg("report")
        .arg(&out)
        .output()
        .unwrap();
    assert!(rep.status.success());
    assert!(String::from_utf8_lossy(&rep.stdout).contains("| point_select | 2 |"));
}

#[test]
fn a_a_study_reports_no_change() {
    let tmp = common::tempdir().unwrap();
    let study = write_study(
        tmp.path(),
        r#"
name = "aa"
threads = [1]
rounds = 5
duration = 1.5
warmup = 0.5
threshold = 0.10
[dataset]
table_size = 1000
[[variant]]
name = "a"
[[variant]]
name = "a_again"
[[workload]]
workload = "oltp_point_select"
"#,
    );
    let (t, _) = run_ok(tmp.path(), &study);
    // Every table row of the cell (absolute and relative): some says "≈" (within threshold)
    // or "?" (not resolved), none calls a change.
    // On a loaded machine (CI beside CI) every round may be contaminated, and 1.5 s cells
    // then swing by a third: a call resting on such rounds is marked ⚑ and the Findings say
    // the caveat says flagged rounds entered. On rounds without contamination an A/A call is a bug.
    let rows: Vec<&str> = t
        .lines()
        .filter(|l| l.starts_with("| point_select | 1 |"))
        .collect();
    // The validity table's rows of the cell name the flags.
    let contaminated = rows.iter().any(|r| r.contains("contaminated"));
    let called: Vec<&&str> = rows
        .iter()
        .filter(|r| r.contains('▲') || r.contains('▼'))
        .collect();
    if contaminated {
        assert!(called.iter().all(|r| r.contains('⚑')), "{t}");
        assert!(
            called.is_empty() || t.contains("enter the figures so marked"),
            "{t}"
        );
    } else {
        assert!(
            rows.iter().any(|r| r.contains(" ≈") || r.contains(" ?")),
            "{t}"
        );
        assert!(called.is_empty(), "A/A must be no change: {rows:?}");
    }
}

#[test]
fn bad_variant_option_and_bad_file_are_usage_errors() {
    let tmp = common::tempdir().unwrap();
    let study = write_study(
        tmp.path(),
        &TINY.replace("scenario = \"default\"", "options = [\"no_such_option=1\"]"),
    );
    let o = psbench(&tmp.path().join("home"))
        .args(["run", "--threads", "1", "--rounds", "1", "--cost"])
        .arg(&study)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("no_such_option"), "{t}");

    let bad = write_study(tmp.path(), "name = \"x\"\nthreds = [1]\n");
    let o = psbench(tmp.path()).arg("run").arg(&bad).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    // Every mistake at once, a line each: the misspelt key, and no variant or workload.
    let lines: Vec<String> = String::from_utf8_lossy(&o.stderr)
        .trim()
        .lines()
        .map(|l| l.replace(&format!("{}", bad.display()), "study.toml"))
        .collect();
    assert_eq!(
        lines,
        [
            "psbench: error: study.toml, line 2: unknown key `threds`; did you mean `threads`?",
            "psbench: error: study.toml: no [[variant]]: a study compares at least one variant",
            "psbench: error: study.toml: no [[workload]]: name at least one workload step",
        ],
        "{t}"
    );

    // Cost mode needs three growing windows, each a whole number of blocks.
    let two = write_study(tmp.path(), &TINY.replace("[300, 600, 900]", "[300, 900]"));
    let o = psbench(tmp.path()).arg("run").arg(&two).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains("cost.events") && t.contains("three or more") && t.contains("[300, 900]"),
        "{t}"
    );

    let o = psbench(tmp.path())
        .args(["run", "no-such-study"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = psbench(tmp.path())
        .args(["report", "/etc"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// Server pids of the study sandboxes (not the dataset loader's) recorded under `home`.
fn study_servers(home: &Path) -> Vec<i32> {
    std::fs::read_dir(home.join("sandboxes"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with("prep-"))
        .filter_map(|e| std::fs::read_to_string(e.path().join("sandbox.json")).ok())
        .filter_map(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
        .filter_map(|v| v["process"]["pid"].as_i64().map(|p| p as i32))
        .collect()
}

fn wait_for(what: &str, child: &mut Child, limit: Duration, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < limit, "timed out waiting for {what}");
        assert!(
            child.try_wait().unwrap().is_none(),
            "psbench exited while waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn cells_done(out: &Path) -> usize {
    std::fs::read_to_string(out.join("results.json"))
        .ok()
        .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
        .map(|v| v["cells"].as_array().map(|a| a.len()).unwrap_or(0))
        .unwrap_or(0)
}

const LONGER: &str = r#"
name = "longer"
threads = [1]
rounds = 3
duration = 2
warmup = 0
[dataset]
table_size = 1000
[[variant]]
name = "a"
[[variant]]
name = "b"
[[workload]]
workload = "oltp_point_select"
"#;

#[test]
fn sigint_keeps_finished_cells_and_resume_completes() {
    let tmp = common::tempdir().unwrap();
    let home = tmp.path().join("home");
    let study = write_study(tmp.path(), LONGER);
    let out = tmp.path().join("out");
    let mut child = psbench(&home)
        .arg("run")
        .arg(&study)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(
        "two finished cells",
        &mut child,
        Duration::from_secs(90),
        || cells_done(&out) >= 2,
    );
    let servers = study_servers(&home);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let t = Instant::now();
    let status = child.wait().unwrap();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_ne!(status.code(), Some(0));
    for p in servers {
        assert!(!alive(p), "server {p} outlived SIGINT");
    }
    let kept = cells_done(&out);
    assert!((2..6).contains(&kept), "{kept} cells kept");

    let o = psbench(&home)
        .arg("run")
        .arg("--resume")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = results(&out);
    assert_eq!(r["cells"].as_array().unwrap().len(), 6);
    assert!(r["finished_unix"].as_u64().is_some());

    // A finished study takes more rounds: only the new round runs, and the document says so.
    let more = |n: &str| {
        psbench(&home)
            .args(["run", "--resume"])
            .arg(&out)
            .args(["--rounds", n])
            .output()
            .unwrap()
    };
    let fewer = more("2");
    assert_eq!(fewer.status.code(), Some(2), "{}", text(&fewer));
    assert!(
        text(&fewer).contains("already has 3 rounds; --rounds can only add rounds"),
        "{}",
        text(&fewer)
    );
    let o = more("4");
    assert!(o.status.success(), "{}", text(&o));
    let r = results(&out);
    assert_eq!(r["study"]["rounds"], 4);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 8);
    assert_eq!(cells.iter().filter(|c| c["round"] == 3).count(), 2);
    assert!(
        r["notes"].to_string().contains("rounds raised from 3 to 4"),
        "{}",
        r["notes"]
    );
}

#[test]
fn server_killed_mid_cell_is_a_failed_cell_and_the_study_goes_on() {
    let tmp = common::tempdir().unwrap();
    let home = tmp.path().join("home");
    let study = write_study(tmp.path(), &LONGER.replace("duration = 2", "duration = 3"));
    let out = tmp.path().join("out");
    let mut child = psbench(&home)
        .arg("run")
        .arg(&study)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first cell: wait until its server runs, then kill it with SIGKILL mid-cell.
    let mut victim = None;
    wait_for(
        "a study server",
        &mut child,
        Duration::from_secs(90),
        || {
            victim = study_servers(&home).into_iter().find(|p| alive(*p));
            victim.is_some()
        },
    );
    std::thread::sleep(Duration::from_millis(1500));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(victim.unwrap()),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    let t = text(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a failed cell makes the run fail: {t}"
    );
    let r = results(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6, "the study went on: {t}");
    let failed: Vec<_> = cells.iter().filter(|c| c["ok"] == false).collect();
    assert_eq!(failed.len(), 1, "{t}");
    assert!(
        failed[0]["error"].as_str().unwrap().contains("server died"),
        "{t}"
    );
    assert!(t.contains("failed"), "{t}");
    assert_eq!(cells.iter().filter(|c| c["ok"] == true).count(), 5);
}

#[test]
fn a_study_with_more_clients_than_the_default_raises_max_connections() {
    let tmp = common::tempdir().unwrap();
    let study = write_study(
        tmp.path(),
        r#"
name = "many"
threads = [120]
rounds = 1
duration = 1
warmup = 0
[dataset]
table_size = 1000
[[variant]]
name = "ps_off"
scenario = "ps_off"
[[workload]]
workload = "oltp_point_select"
"#,
    );
    let (_, out) = run_ok(tmp.path(), &study);
    let r = results(&out);
    let cell = &r["cells"][0];
    assert_eq!(
        (cell["ok"].clone(), cell["threads"].clone()),
        (true.into(), 120.into()),
        "{cell}"
    );
    assert_eq!(cell["errors"], 0, "{cell}");
    // Raised for the 120 clients and the study's own connections, and recorded.
    let v = &r["variants"]["ps_off"];
    assert_eq!(v["variables"]["max_connections"], "128", "{v}");
    // And room for their prepared statements: 128 each beyond the server's 16,382.
    assert_eq!(v["variables"]["max_prepared_stmt_count"], "16384", "{v}");
    assert!(
        v["options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["key"] == "max_connections" && o["value"] == "128"),
        "{v}"
    );
}

#[test]
fn a_study_counts_one_step_and_times_another_and_answers_in_its_own_words() {
    let tmp = common::tempdir().unwrap();
    let study = write_study(
        tmp.path(),
        r#"
name = "split"
mode = "both"
cost_workloads = ["point_select"]
throughput_workloads = ["read_only"]
threads = [1]
rounds = 1
duration = 0.5
warmup = 0.1
[dataset]
table_size = 500
[cost]
events = [100, 200, 300]
warmup_events = 50
[[variant]]
name = "ps_off"
means = "performance_schema off"
scenario = "ps_off"
[[variant]]
name = "default"
means = "performance_schema on"
scenario = "default"
[[variant]]
name = "later"
scenario = "default"
full_only = true
[[workload]]
workload = "oltp_point_select"
[[workload]]
workload = "oltp_read_only"
"#,
    );
    let (t, out) = run_ok(tmp.path(), &study);
    let r = results(&out);
    let steps = |key: &str, field: &str| -> Vec<String> {
        let mut s: Vec<String> = r[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c[field].as_str().unwrap().to_string())
            .collect();
        s.dedup();
        s
    };
    assert_eq!(steps("cells", "step"), ["read_only"], "{t}");
    assert_eq!(steps("cost", "step"), ["point_select"], "{t}");
    // The full_only variant waited for --full.
    assert!(r["variants"].get("later").is_none(), "{t}");
    // Findings open with the question in the variants' words: the count of the step cost
    // mode measured, the throughput of the one the rounds timed.
    let line = t
        .lines()
        .find(|l| l.starts_with("- performance_schema on (default) against performance_schema off (ps_off): instructions "))
        .unwrap_or_else(|| panic!("{t}"));
    assert!(
        line.contains("per transaction (point_select)") && line.contains("(read_only, 1 thread"),
        "{line}"
    );
    // Added to the results history under the study's own home, never the user's: two counts,
    // and throughput and server CPU of read_only for each variant.
    assert!(t.contains("history: 6 points added to "), "{t}");
    assert!(tmp.path().join("home/history.sqlite").is_file(), "{t}");
}
