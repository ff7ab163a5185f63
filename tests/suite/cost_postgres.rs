//! Cost mode on PostgreSQL under callgrind: each window's backend, found by
//! pg_backend_pid() and counted from its exit dump; the self-check that catches a window
//! carrying work the others do not; pg_stat_statements' price per point select; and a study
//! in cost mode over two scenarios.

use crate::common;

use psbench::connection::Session;
use psbench::cost::{self, Counter, ExitDumps, Plan, Target};
use psbench::run::dataset;
use psbench::server::{Home, Sandbox, SandboxSpec};
use psbench::workloads::sysbench::{sysbench_workload, OltpOptions};
use std::path::Path;
use std::time::Duration;

fn start_under_callgrind(
    home: &Path,
    name: &str,
    options: &[&str],
) -> (Sandbox, std::path::PathBuf) {
    let h = Home::new(home);
    let opts = OltpOptions {
        table_size: 1000,
        ..OltpOptions::default()
    };
    let tree = psbench::engines::postgres::binaries::system_tree().unwrap();
    let data = dataset::prepared(
        &h,
        Some(&tree),
        &opts,
        None,
        &Default::default(),
        &mut std::io::sink(),
    )
    .unwrap()
    .dir;
    let dumps = h.sandbox_dir(name).join("cg");
    std::fs::create_dir_all(&dumps).unwrap();
    let mut spec = SandboxSpec::new(name, h);
    spec.family = Some(psbench::results::Family::Postgres);
    spec.basedir = Some(tree);
    for o in options {
        spec = spec.option(o).unwrap();
    }
    spec.wrapper = ExitDumps.wrapper(&dumps).unwrap();
    spec.datadir_from = Some(data);
    spec.ready_timeout = Duration::from_secs(180);
    (psbench::engines::start(spec).unwrap(), dumps)
}

/// The sandbox as cost mode measures it: the dataset's database, the dumps under `dumps`.
fn target(sb: &Sandbox, dumps: &Path) -> Target {
    Target {
        pid: sb.pid().unwrap(),
        endpoint: sb.admin_endpoint().with_database(Some(dataset::DATABASE)),
        account: sb.server_account().cloned(),
        dumps: dumps.to_path_buf(),
    }
}

fn plan() -> Plan {
    Plan {
        warmup: 200,
        windows: vec![300, 600, 900],
    }
}

#[test]
fn each_windows_backend_is_counted_and_a_burst_is_caught() {
    let home = common::tempdir().unwrap();
    let (sb, dumps) = start_under_callgrind(home.path(), "cpg", &[]);
    let target = target(&sb, &dumps);
    let opts = OltpOptions {
        table_size: 1000,
        ..OltpOptions::default()
    };
    let w = sysbench_workload("oltp_point_select", &opts).unwrap();

    // A one-off scan on the measured connection in the middle window of each attempt.
    let mut injected = Vec::new();
    let mut burst = |attempt: u32, window: usize, conn: &mut Session| {
        if window == 1 {
            injected.push(attempt);
            conn.query("SELECT sum(length(c)) FROM sbtest1")?;
        }
        Ok(())
    };
    let m = cost::measure_with(&ExitDumps, &target, w.as_ref(), &plan(), 11, &mut burst).unwrap();
    eprintln!("with a burst: {:?}", m.estimates);
    assert_eq!(injected, vec![1, 2], "measured once and repeated once");
    assert!(m.unstable, "a burst in one window was averaged in: {m:?}");
    assert_eq!(m.windows.len(), 6);

    let plain = cost::measure(&ExitDumps, &target, w.as_ref(), &plan(), 12).unwrap();
    eprintln!("plain: {:?}", plain.estimates);
    assert!(!plain.unstable, "{plain:?}");
    // Usually one attempt of three windows. Under load the backend's count in one window has
    // been seen to stray (CI, 2026-11-26: the second attempt's marginal estimates then agreed,
    // 41,810 and 41,804 instructions); the self-check measures once more, which is what it
    // is for.
    assert!(
        plain.windows.len() == 3 || plain.windows.len() == 6,
        "{plain:?}"
    );
    assert!(
        (10_000.0..200_000.0).contains(&plain.ir_per_txn),
        "a point select costs tens of thousands of instructions: {plain:?}"
    );
    // Every window was counted from its own backend's dump (a count waits for it, and fails
    // without it); each dump is removed once read (src/cost/dumps.rs tests that).
}

#[test]
fn a_postgres_study_in_cost_mode_prices_pg_stat_statements() {
    let (r, _) = common::run_study(
        r#"
name = "pgcost"
mode = "cost"
[dataset]
table_size = 1000
[cost]
events = [200, 400, 600]
warmup_events = 200
[[variant]]
name = "off"
engine = "postgres"
scenario = "pg_off"
[[variant]]
name = "pgss"
engine = "postgres"
scenario = "pgss_top"
[[workload]]
workload = "oltp_point_select"
"#,
    );
    let cost = |v: &str| {
        r["cost"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["variant"] == v)
            .unwrap()["ir_per_txn"]
            .as_f64()
            .unwrap()
    };
    let (off, pgss) = (cost("off"), cost("pgss"));
    // Measured here (2026-11-25, PostgreSQL 15.18): about 42,700 and 44,400.
    assert!(
        pgss > off * 1.01,
        "pg_stat_statements costs nothing? {off} vs {pgss}"
    );
    assert!(pgss < off * 1.5, "{off} vs {pgss}");
}
