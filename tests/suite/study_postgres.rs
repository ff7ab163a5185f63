//! Studies on PostgreSQL: variants of Debian's PostgreSQL with scenarios verified on the
//! running server, sysbench's and pgbench's workloads on one dataset, the server's CPU over
//! its process tree and PostgreSQL's statistics per transaction; and the mix-ups refused.

use crate::common;

use common::{psbench, run_in, text};

#[test]
fn a_postgres_study_measures_its_scenarios() {
    let (r, md) = common::run_study(
        r#"
name = "pg"
threads = [2]
rounds = 1
duration = 1
warmup = 0.2
[dataset]
table_size = 2000
pgbench_scale = 1
[[variant]]
name = "off"
engine = "postgres"
scenario = "pg_off"
[[variant]]
name = "pgss"
engine = "postgres"
scenario = "pgss_top"
[[workload]]
workload = "pgbench_select_only"
options = { query_mode = "prepared" }
[[workload]]
workload = "oltp_point_select"
"#,
    );
    let libs = |v: &str| {
        r["variants"][v]["variables"]["shared_preload_libraries"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(libs("off"), "");
    assert_eq!(libs("pgss"), "pg_stat_statements");
    assert_eq!(
        r["variants"]["pgss"]["variables"]["pg_stat_statements.track"],
        "top"
    );
    // PostgreSQL has no performance_schema: none is recorded; its build is.
    for v in ["off", "pgss"] {
        let p = &r["variants"][v];
        assert!(p.get("pfs").is_none(), "{p}");
        assert_eq!(p["build"]["family"], "postgres");
        assert_eq!(p["build"]["flavour"], "postgres");
        assert_eq!(p["build"]["sha256"], p["server_sha256"]);
        assert_eq!(p["build"]["origin"]["kind"], "system");
    }
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4, "2 variants x 2 steps");
    for c in cells {
        assert_eq!(c["ok"], true, "{c}");
        let res = &c["resources"];
        // One select-only or point-select transaction: one commit, one row. A backend
        // reports its counts at most once a second, so a 1 s cell's delta can hold some of
        // the warm-up's or miss its own last part: 1.20 commits per transaction in one CI run
        // (a cell measured again under two concurrent suites). None or two per transaction
        // would still be far outside.
        let per = &res["status_per_txn"];
        let commits = per["pg_stat_database.xact_commit"].as_f64().unwrap();
        assert!(
            (0.7..1.4).contains(&commits),
            "{commits} commits per txn: {c}"
        );
        let fetched = per["pg_stat_database.tup_fetched"].as_f64().unwrap();
        assert!((0.7..1.5).contains(&fetched), "{fetched} rows per txn");
        // The backends do the work: the postmaster alone would show almost none.
        let server = res["server_cpu_us_per_txn"].as_f64().unwrap();
        let client = res["client_cpu_us_per_txn"].as_f64().unwrap();
        assert!(
            server > client * 0.5,
            "server {server} µs/txn, client {client}"
        );
    }
    assert!(
        md.contains("pgbench_select_only") && md.contains("pgss / off"),
        "{md}"
    );
}

#[test]
fn engines_scenarios_and_workloads_that_do_not_belong_together_are_refused() {
    let dir = common::tempdir().unwrap();
    let w = "[[workload]]\nworkload = \"oltp_point_select\"\n";
    for (body, says) in [
        (
            format!("name = \"x\"\n[[variant]]\nname = \"a\"\n[[variant]]\nname = \"b\"\nengine = \"postgres\"\n{w}"),
            "one engine",
        ),
        (
            format!("name = \"x\"\n[[variant]]\nname = \"a\"\nengine = \"postgres\"\nscenario = \"all_enabled\"\n{w}"),
            "not a PostgreSQL scenario",
        ),
        (
            format!("name = \"x\"\n[[variant]]\nname = \"a\"\nscenario = \"pgss_top\"\n{w}"),
            "PostgreSQL's",
        ),
        (
            "name = \"x\"\n[[variant]]\nname = \"a\"\n[[workload]]\nworkload = \"pgbench_tpcb_like\"\n".to_string(),
            "PostgreSQL only",
        ),
        (
            format!("name = \"x\"\n[[variant]]\nname = \"a\"\nengine = \"postgres\"\noptions = [\"innodb_buffer_pool_size=1G\"]\n{w}"),
            "innodb_buffer_pool_size",
        ),
        (
            format!("name = \"x\"\n[[variant]]\nname = \"a\"\nengine = \"mariadb\"\n{w}"),
            "engine",
        ),
    ] {
        let o = run_in(dir.path(), &body, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{body}: {}", text(&o));
        assert!(err.contains(says), "{body}: {err}");
        assert_eq!(err.trim().lines().filter(|l| l.starts_with("psbench:")).count(), 1, "{err}");
    }
}

#[test]
fn an_interrupted_postgres_study_records_no_failures_and_resumes() {
    let dir = common::tempdir().unwrap();
    let file = dir.path().join("study.toml");
    std::fs::write(
        &file,
        r#"
name = "pgint"
threads = [1, 2]
rounds = 2
duration = 1
warmup = 0.2
[dataset]
table_size = 2000
[[variant]]
name = "off"
engine = "postgres"
[[variant]]
name = "pgss"
engine = "postgres"
scenario = "pgss_top"
[[workload]]
workload = "oltp_point_select"
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let mut child = psbench(&dir.path().join("home"))
        .arg("run")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Interrupt once some cells are in: the one running then is cut short.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let done = std::fs::read_to_string(out.join("results.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .map_or(0, |r| r["cells"].as_array().map_or(0, |c| c.len()));
        if done >= 2 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no cells after 120 s");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
    let r = common::results(&out);
    let cells = r["cells"].as_array().unwrap();
    assert!(cells.len() < 8, "the study finished before the signal");
    assert!(
        cells.iter().all(|c| c["ok"] == true),
        "a cell cut short by the stop was kept as a failure: {cells:#?}"
    );
    let o = psbench(&dir.path().join("home"))
        .arg("run")
        .arg("--resume")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = common::results(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 8, "2 variants x 2 threads x 2 rounds");
    assert!(cells.iter().all(|c| c["ok"] == true));
}
