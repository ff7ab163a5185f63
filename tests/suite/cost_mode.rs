//! Cost mode against real servers under callgrind: one connection, the thread that served it,
//! and the self-check that catches a window carrying work the others do not.

use crate::common;

use common::{psbench, results, text};
use psbench::connection::Session;
use psbench::cost::{self, Counter, Plan, ServingThread, Target, TOLERANCE};
use psbench::run::dataset;
use psbench::server::{Home, Sandbox, SandboxSpec};
use psbench::workloads::sysbench::{sysbench_workload, OltpOptions};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

fn start_under_callgrind(home: &Path) -> (Sandbox, std::path::PathBuf, OltpOptions) {
    let h = Home::new(home);
    let opts = OltpOptions {
        table_size: 1000,
        ..OltpOptions::default()
    };
    let data = dataset::prepared(
        &h,
        None,
        &opts,
        None,
        &Default::default(),
        &mut std::io::sink(),
    )
    .unwrap()
    .dir;
    // Inside the sandbox's directory, which belongs to the server's account.
    let dumps = h.sandbox_dir("cost").join("cg");
    std::fs::create_dir_all(&dumps).unwrap();
    let mut spec = SandboxSpec::new("cost", h);
    spec.options = psbench::engines::mysql::cost::valgrind_options(&[]);
    spec.wrapper = ServingThread.wrapper(&dumps).unwrap();
    spec.datadir_from = Some(data);
    spec.ready_timeout = Duration::from_secs(180);
    (psbench::engines::start(spec).unwrap(), dumps, opts)
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
        windows: vec![500, 1000, 1500],
    }
}

/// Keeps one core busy until dropped (killed by its own pid).
struct Burner(Child);

impl Burner {
    fn start() -> Burner {
        Burner(
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .unwrap(),
        )
    }
}

impl Drop for Burner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_burst_in_one_window_is_caught_as_unstable_and_the_same_variant_repeats_under_load() {
    let home = common::tempdir().unwrap();
    let (sb, dumps, opts) = start_under_callgrind(home.path());
    let target = target(&sb, &dumps);
    let w = sysbench_workload("oltp_point_select", &opts).unwrap();

    // A one-off burst on the measured connection before the middle window of each attempt:
    // a full scan (about 100 point selects' worth of instructions) counted in that window only.
    let mut injected = Vec::new();
    let mut burst = |attempt: u32, window: usize, conn: &mut Session| {
        if window == 1 {
            injected.push(attempt);
            conn.query("SELECT SUM(LENGTH(c)) FROM sbtest1")?;
        }
        Ok(())
    };
    let m =
        cost::measure_with(&ServingThread, &target, w.as_ref(), &plan(), 11, &mut burst).unwrap();
    eprintln!("with a burst: {:?}", m.estimates);
    assert_eq!(injected, vec![1, 2], "measured once and repeated once");
    assert!(m.unstable, "a burst in one window was averaged in: {m:?}");
    assert_eq!(m.windows.len(), 6, "every window of both attempts is kept");
    assert_eq!(m.estimates.len(), 2);
    let threads: Vec<u32> = m.windows.iter().map(|w| w.thread).collect();
    assert!(
        threads.iter().all(|t| *t == threads[0]),
        "one serving thread: {threads:?}"
    );

    // The same variant three times while another process keeps a core busy: each is stable
    // and all three agree within the tolerance.
    let _burner = Burner::start();
    let runs: Vec<f64> = (0..3)
        .map(|i| {
            let m = cost::measure(&ServingThread, &target, w.as_ref(), &plan(), 20 + i).unwrap();
            assert!(!m.unstable, "a plain measurement was unstable: {m:?}");
            assert_eq!(m.windows.len(), 3, "{m:?}");
            m.ir_per_txn
        })
        .collect();
    eprintln!("under load: {runs:?}");
    let lo = runs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = runs.iter().copied().fold(0.0, f64::max);
    assert!(
        lo > 10_000.0 && hi < 200_000.0,
        "a point select costs tens of thousands of instructions: {runs:?}"
    );
    assert!((hi - lo) / lo <= TOLERANCE, "repeats differ: {runs:?}");
}

#[test]
fn performance_schema_scenarios_cost_in_the_order_they_must() {
    let tmp = common::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = psbench(&tmp.path().join("home"))
        .args(["run", "pfs-overhead", "--cost", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let r = results(&out);
    let mut cost = BTreeMap::new();
    for c in r["cost"].as_array().unwrap() {
        assert_eq!(c["ok"], true, "{c}");
        assert!(c["unstable"].is_null(), "unstable: {c}");
        assert!(c["windows"].as_array().unwrap().len() >= 3, "{c}");
        cost.insert(
            c["variant"].as_str().unwrap().to_string(),
            c["ir_per_txn"].as_f64().unwrap(),
        );
    }
    eprintln!("{cost:?}");
    assert!(cost.len() >= 10, "{cost:?}");
    let ratio = |v: &str| cost[v] / cost["ps_off"];
    // performance_schema on with nothing enabled still costs its hooks.
    assert!(ratio("all_disabled") >= 1.02, "{cost:?}");
    assert!(cost["default"] > cost["all_disabled"], "{cost:?}");
    for (v, ir) in &cost {
        if v != "all_enabled" {
            assert!(cost["all_enabled"] > *ir, "all_enabled vs {v}: {cost:?}");
        }
    }
}
