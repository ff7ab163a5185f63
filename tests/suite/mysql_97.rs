//! MySQL 9.7.2 built by psbench's recipe (the `release` and `no_pfs` archives, which
//! scripts/test.sh imports into the build cache before it runs these), in sandboxes:
//! initialised with `--initialize-insecure`, its accounts on `caching_sha2_password` (9.x
//! has no `mysql_native_password`), reached by psbench's own client on the socket and over
//! TCP; every option psbench passes read back; every performance_schema scenario verified on
//! the running server; the instruments `no_pfs` leaves, class by class, against `release`;
//! and cost mode on the thread that served the connection.

use crate::common;

use common::{psbench, require, text};
use std::path::{Path, PathBuf};

const SOURCE: &str = "debian:mysql-9.7=9.7.2-4";

const NEEDS_BUILDS: &str = "needs MySQL 9.7.2's release and no_pfs builds in psbench's build cache (a build takes about 50 minutes per flag set on 2 cores): bash scripts/test.sh imports them from ../shared/builds and runs these; by hand, psbench build import ../shared/builds/*.tar.xz, then cargo test --release --test suite mysql_97:: -- --ignored";

/// The tree of the 9.7.2 build of `flags` in the build cache; the test fails without it.
fn tree(flags: &str) -> PathBuf {
    let (dir, _) = require::mysql_97_build(flags)
        .unwrap_or_else(|| panic!("no MySQL 9.7.2 {flags} build: {NEEDS_BUILDS}"));
    dir.join("tree")
}

/// A value of `sandbox start`'s output (`  port    46575 (127.0.0.1)`).
fn field(out: &str, key: &str) -> String {
    out.lines()
        .find_map(|l| l.trim().strip_prefix(key).filter(|r| r.starts_with(' ')))
        .and_then(|v| v.split_whitespace().next())
        .unwrap_or_else(|| panic!("no {key} in:\n{out}"))
        .to_string()
}

/// A sandbox of `tree` under `home`, started by the CLI: its socket and port.
fn start(home: &Path, name: &str, tree: &Path) -> (String, String) {
    let o = psbench(home)
        .args(["sandbox", "start", "--name", name, "--basedir"])
        .arg(tree)
        .output()
        .unwrap();
    let started = text(&o);
    assert!(o.status.success(), "{started}");
    (field(&started, "socket"), field(&started, "port"))
}

fn stop(home: &Path, name: &str) {
    let o = psbench(home)
        .args(["sandbox", "stop", name])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

/// Rows of `sql` run as root on the socket, a line each, columns tab-separated.
fn query(socket: &str, sql: &str) -> Vec<String> {
    let o = std::process::Command::new("mariadb")
        .args(["--no-defaults", "-uroot", "-N", "-S", socket, "-e", sql])
        .output()
        .unwrap();
    assert!(o.status.success(), "{sql}: {}", text(&o));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

fn bench(home: &Path, args: &[&str]) -> String {
    let o = psbench(home)
        .args(["bench", "oltp_point_select"])
        .args(args)
        .args(["--tables", "1", "--table-size", "200"])
        .output()
        .unwrap();
    assert!(o.status.success(), "bench {args:?}: {}", text(&o));
    text(&o)
}

#[test]
#[ignore = "needs MySQL 9.7.2's release and no_pfs builds imported: bash scripts/test.sh imports ../shared/builds and runs it (psbench build import ARCHIVE…, then cargo test --release --test suite mysql_97:: -- --ignored)"]
fn a_97_sandbox_answers_caching_sha2_on_the_socket_and_over_tcp() {
    let tree = tree("release");
    let tmp = common::tempdir().unwrap();
    let home = tmp.path().join("home");
    let (socket, port) = start(&home, "s97", &tree);
    let sandbox = home.join("sandboxes/s97");
    let password = std::fs::read_to_string(sandbox.join("client.cnf"))
        .unwrap()
        .lines()
        .find_map(|l| {
            l.strip_prefix("password=")
                .or(l.strip_prefix("password = "))
        })
        .map(|p| p.trim().to_string())
        .expect("client.cnf holds the sandbox's password");
    let plugins = query(
        &socket,
        "SELECT DISTINCT plugin FROM mysql.user WHERE user IN ('root', 'psbench')",
    );
    // On the socket as root without a password; over TCP with the sandbox's own.
    let socket_run = bench(
        &home,
        &["prepare", "--mysql-socket", &socket, "--mysql-user", "root"],
    );
    let pw_file = tmp.path().join("pw");
    std::fs::write(&pw_file, &password).unwrap();
    let tcp_run = bench(
        &home,
        &[
            "run",
            "--mysql-host",
            "127.0.0.1",
            "--mysql-port",
            &port,
            "--mysql-user",
            "root",
            "--mysql-password-file",
            pw_file.to_str().unwrap(),
            "--time",
            "1",
        ],
    );
    let log = std::fs::read_to_string(sandbox.join("run/error.log")).unwrap();
    stop(&home, "s97");
    assert_eq!(plugins, ["caching_sha2_password"]);
    assert!(socket_run.contains("200"), "{socket_run}");
    assert!(tcp_run.contains("transactions:"), "{tcp_run}");
    assert!(log.contains("9.7.2"), "{log}");
    assert!(!log.contains("[ERROR]"), "{log}");
}

#[test]
#[ignore = "needs MySQL 9.7.2's release and no_pfs builds imported: bash scripts/test.sh imports ../shared/builds and runs it (psbench build import ARCHIVE…, then cargo test --release --test suite mysql_97:: -- --ignored)"]
fn every_scenario_is_verified_on_a_running_97_and_its_options_read_back() {
    tree("release");
    // Every scenario but MariaDB's own (userstat, refused on MySQL by name).
    let scenarios: Vec<&str> = psbench::engines::mysql::scenarios::NAMES
        .iter()
        .copied()
        .filter(|s| *s != "userstat")
        .collect();
    let mut study = String::from(
        "name = \"scenarios-97\"\nrounds = 1\nthreads = [1]\nwarmup = 0.2\nduration = 0.5\nbase = \"ps_off\"\n[dataset]\ntable_size = 500\n",
    );
    for s in &scenarios {
        study.push_str(&format!(
            "[[variant]]\nname = \"{s}\"\nscenario = \"{s}\"\nbuild = {{ source = \"{SOURCE}\", flags = \"release\" }}\n"
        ));
    }
    study.push_str("[[workload]]\nworkload = \"oltp_point_select\"\n");
    let (res, _) = common::run_study(&study);
    for s in &scenarios {
        let v = &res["variants"][*s];
        assert_eq!(v["build"]["origin"]["flags"], "release", "{s}");
        assert!(
            v["server_version"]
                .as_str()
                .unwrap_or_default()
                .starts_with("9.7.2"),
            "{s}: {}",
            v["server_version"]
        );
        // The study stops on a scenario whose instruments and consumers read back otherwise;
        // here the state it recorded.
        assert_eq!(v["pfs"]["enabled"], *s != "ps_off", "{s}: {}", v["pfs"]);
    }
    let all = &res["variants"]["all_enabled"]["pfs"];
    assert_eq!(all["instruments_enabled"], all["instruments"], "{all}");
    assert_eq!(res["cells"].as_array().unwrap().len(), scenarios.len());
}

/// The six instruments performance_schema defines itself whatever was compiled out.
const SINGLETONS: [&str; 6] = [
    "error",
    "idle",
    "transaction",
    "wait/io/table/sql/handler",
    "wait/lock/metadata/sql/mdl",
    "wait/lock/table/sql/handler",
];

#[test]
#[ignore = "needs MySQL 9.7.2's release and no_pfs builds imported: bash scripts/test.sh imports ../shared/builds and runs it (psbench build import ARCHIVE…, then cargo test --release --test suite mysql_97:: -- --ignored)"]
fn no_pfs_leaves_85_instruments_of_releases_1242_and_they_count_nothing() {
    let (release, no_pfs) = (tree("release"), tree("no_pfs"));
    let tmp = common::tempdir().unwrap();
    let home = tmp.path().join("home");
    let (rel_socket, _) = start(&home, "rel", &release);
    let (off_socket, _) = start(&home, "off", &no_pfs);
    let per_class = "SELECT SUBSTRING_INDEX(name, '/', 1) AS c, COUNT(*) FROM performance_schema.setup_instruments GROUP BY c ORDER BY COUNT(*) DESC, c";
    let rel = query(&rel_socket, per_class);
    let off = query(&off_socket, per_class);
    let names = query(
        &off_socket,
        "SELECT name FROM performance_schema.setup_instruments ORDER BY name",
    );
    // Everything on, then statements of each kind the compiled-out classes would count.
    query(
        &off_socket,
        "UPDATE performance_schema.setup_instruments SET enabled = 'YES', timed = 'YES'; \
         UPDATE performance_schema.setup_consumers SET enabled = 'YES'; \
         CREATE DATABASE t; CREATE TABLE t.a (i INT PRIMARY KEY, v INT); \
         INSERT INTO t.a VALUES (1, 1), (2, 2); SELECT * FROM t.a; \
         BEGIN; SELECT * FROM t.a WHERE i = 1 FOR UPDATE; COMMIT",
    );
    let counted = query(
        &off_socket,
        "SELECT (SELECT COUNT(*) FROM performance_schema.events_waits_summary_global_by_event_name WHERE count_star > 0), \
                (SELECT SUM(count_star) FROM performance_schema.events_transactions_summary_global_by_event_name), \
                (SELECT COUNT(*) FROM performance_schema.events_statements_summary_by_digest), \
                (SELECT COUNT(*) FROM performance_schema.memory_summary_global_by_event_name \
                   WHERE current_number_of_bytes_used > 0 AND event_name NOT LIKE 'memory/performance_schema/%')",
    );
    let pfs = query(&off_socket, "SELECT @@performance_schema");
    stop(&home, "rel");
    stop(&home, "off");
    let rows = |r: &[&str]| r.iter().map(|s| s.replace(' ', "\t")).collect::<Vec<_>>();
    assert_eq!(
        rel,
        rows(&[
            "memory 506",
            "wait 372",
            "statement 228",
            "stage 133",
            "error 1",
            "idle 1",
            "transaction 1"
        ])
    );
    assert_eq!(
        off,
        rows(&["memory 79", "wait 3", "error 1", "idle 1", "transaction 1"])
    );
    assert_eq!(pfs, ["1"], "performance_schema stays ON in no_pfs");
    // What remains: performance_schema's accounting of its own buffers, and the classes it
    // defines itself, whose call sites in the server were compiled out.
    let own_memory = names
        .iter()
        .filter(|n| n.starts_with("memory/performance_schema/"))
        .count();
    let rest: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !n.starts_with("memory/performance_schema/"))
        .collect();
    assert_eq!(own_memory, 79, "{names:?}");
    assert_eq!(rest, SINGLETONS);
    assert_eq!(
        counted,
        ["0\t0\t0\t0"],
        "no_pfs counted events with everything on"
    );
}

#[test]
#[ignore = "needs MySQL 9.7.2's release and no_pfs builds imported: bash scripts/test.sh imports ../shared/builds and runs it (psbench build import ARCHIVE…, then cargo test --release --test suite mysql_97:: -- --ignored)"]
fn a_build_named_by_its_cache_name_runs_and_a_scenario_of_a_class_compiled_out_is_refused() {
    let (dir, _) = require::mysql_97_build("no_pfs").expect(NEEDS_BUILDS);
    let name = dir.file_name().unwrap().to_str().unwrap().to_string();
    let study = |scenario: &str| {
        format!(
            "name = \"named-97\"\nrounds = 1\nthreads = [1]\nwarmup = 0.2\nduration = 0.5\n[dataset]\ntable_size = 200\n\
             [[variant]]\nname = \"lessps\"\nscenario = \"{scenario}\"\nbuild = \"{name}\"\n\
             [[workload]]\nworkload = \"oltp_point_select\"\n"
        )
    };
    let (res, _) = common::run_study(&study("default"));
    let v = &res["variants"]["lessps"];
    assert_eq!(v["build"]["origin"]["name"], name.as_str(), "{v}");
    assert_eq!(v["build"]["origin"]["flags"], "no_pfs", "{v}");
    assert_eq!(
        res["cells"].as_array().unwrap().len(),
        1,
        "{}",
        res["cells"]
    );
    // stages measures the stage class, which this build compiled out: refused before any
    // server starts, naming the class.
    let tmp = common::tempdir().unwrap();
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, study("stages_only")).unwrap();
    let o = psbench(&tmp.path().join("home"))
        .args(["run", file.to_str().unwrap(), "--plan"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("scenario 'stages_only' measures instruments of class STAGE"),
        "{}",
        text(&o)
    );
}

#[test]
#[ignore = "needs MySQL 9.7.2's release and no_pfs builds imported: bash scripts/test.sh imports ../shared/builds and runs it (psbench build import ARCHIVE…, then cargo test --release --test suite mysql_97:: -- --ignored)"]
fn cost_mode_counts_the_serving_thread_of_a_97_and_repeats_within_the_self_check() {
    use psbench::cost::{self, Counter, Plan, ServingThread, Target, TOLERANCE};
    use psbench::run::dataset;
    use psbench::server::{Home, SandboxSpec};
    use psbench::workloads::sysbench::{sysbench_workload, OltpOptions};
    let tree = tree("release");
    let tmp = common::tempdir().unwrap();
    let h = Home::new(tmp.path());
    let opts = OltpOptions {
        table_size: 1000,
        ..OltpOptions::default()
    };
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
    let dumps = h.sandbox_dir("cost97").join("cg");
    std::fs::create_dir_all(&dumps).unwrap();
    let mut spec = SandboxSpec::new("cost97", h);
    spec.basedir = Some(tree);
    spec.options = psbench::engines::mysql::cost::valgrind_options(&[]);
    spec.wrapper = ServingThread.wrapper(&dumps).unwrap();
    spec.datadir_from = Some(data);
    spec.ready_timeout = std::time::Duration::from_secs(300);
    let sb =
        psbench::engines::start(spec).unwrap_or_else(|e| panic!("9.7.2 under callgrind: {e:#}"));
    let target = Target {
        pid: sb.pid().unwrap(),
        endpoint: sb.admin_endpoint().with_database(Some(dataset::DATABASE)),
        account: sb.server_account().cloned(),
        dumps: dumps.clone(),
    };
    let plan = Plan {
        warmup: 200,
        windows: vec![500, 1000, 1500],
    };
    let w = sysbench_workload("oltp_point_select", &opts).unwrap();
    let runs: Vec<cost::CostMeasurement> = (0..2)
        .map(|i| cost::measure(&ServingThread, &target, w.as_ref(), &plan, 30 + i).unwrap())
        .collect();
    let ir: Vec<f64> = runs.iter().map(|m| m.ir_per_txn).collect();
    eprintln!("9.7.2 release, instructions per point select: {ir:?}");
    for m in &runs {
        assert!(!m.unstable, "{m:?}");
    }
    let (lo, hi) = (ir[0].min(ir[1]), ir[0].max(ir[1]));
    assert!(lo > 10_000.0 && hi < 500_000.0, "{ir:?}");
    assert!((hi - lo) / lo <= TOLERANCE, "repeats differ: {ir:?}");
    // The counted thread's dumps are of the thread that ran the statements: its largest (a
    // window's; a dump between windows, while it waited, may name nothing it ran).
    let thread = runs[0].windows[0].thread;
    let dump = std::fs::read_dir(&dumps)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.rsplit_once('-'))
                .is_some_and(|(_, t)| t.parse::<u32>() == Ok(thread))
        })
        .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .unwrap_or_else(|| panic!("no dump of thread {thread} in {}", dumps.display()));
    let text = std::fs::read_to_string(&dump).unwrap();
    for f in ["do_command", "dispatch_command"] {
        assert!(text.contains(f), "{} names no {f}", dump.display());
    }
    drop(sb);
}

#[test]
#[ignore = "needs MySQL 9.7.2's release and no_pfs builds imported: bash scripts/test.sh imports ../shared/builds and runs it (psbench build import ARCHIVE…, then cargo test --release --test suite mysql_97:: -- --ignored)"]
fn an_index_build_counts_the_threads_that_worked_for_it_and_repeats() {
    // 9.7.2 builds an index on InnoDB's parallel reader threads, which share the work with the
    // connection's thread differently in each attempt: counting the connection alone, or the
    // busiest thread, fails or comes out far apart.
    tree("release");
    let (r, md) = common::run_study(&format!(
        r#"
name = "lx97"
mode = "cost"
base = "rel"
cost_workloads = ["insert-benchmark"]
threads = [1]
[[variant]]
name = "rel"
build = {{ source = "{SOURCE}", flags = "release" }}
scenario = "default"
[[workload]]
workload = "insert-benchmark"
steps = ["l.i0", "l.x"]
"#
    ));
    let cost = r["cost"].as_array().unwrap();
    let lx = cost
        .iter()
        .find(|c| c["step"] == "l.x")
        .unwrap_or_else(|| panic!("no l.x count: {md}"));
    assert_eq!(lx["ok"], true, "{lx}");
    // The attempts' spread: on an idle 2-core VM (2026-12-07) three attempts gave 40,930,
    // 39,851 and 40,148 per row (2.7% apart, the closest 0.74%), so the index build's split of
    // work between its threads moves its count by a few percent and `unstable` may be set. The
    // connection's thread alone would count a fraction of the work, or wildly apart.
    let est: Vec<f64> = lx["estimates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let (lo, hi) = est
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
    assert!(
        (hi - lo) / lo <= 0.05,
        "attempts apart by more than 5%: {lx}"
    );
    let windows = lx["windows"].as_array().unwrap();
    let per_row: Vec<f64> = windows
        .iter()
        .map(|w| w["ir"].as_f64().unwrap() / w["events"].as_f64().unwrap())
        .collect();
    eprintln!("9.7.2 release, instructions per indexed row: {per_row:?}");
    // Two attempts, or three when the first two disagreed.
    assert!(matches!(windows.len(), 2 | 3), "{lx}");
    // cost mode's 20,000 rows (at 5,000 the two attempts differed by 5%), and a full index
    // build of 20,100: more per row than the connection's share alone.
    assert!(per_row.iter().all(|x| *x > 10_000.0), "{per_row:?}");
}
