//! The sysbench workloads against a real MariaDB sandbox, with the installed sysbench 1.0.20
//! as the reference: per-event SHOW GLOBAL STATUS deltas, the prepared dataset, the client's
//! read/write/other counts (docs/sysbench-compat.md#how-compatibility-is-tested).

mod common;

use mysql::prelude::Queryable;
use psbench::connection::Endpoint;
use psbench::server::{Home, Sandbox, SandboxSpec};
use psbench::workloads::sysbench::{OltpOptions, PsMode, RandType};
use psbench::workloads::{sysbench_workload, EventError, QueryCounters};
use std::collections::HashMap;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

const SEED: u64 = 20_200_424;

/// A sandbox with its scratch directory (kept short for the unix socket path).
struct Server {
    /// Status snapshots reuse one connection: connecting runs a SELECT of its own.
    monitor: std::cell::RefCell<mysql::Conn>,
    sb: Sandbox,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start(name: &str) -> Server {
        let dir = common::tempdir_builder()
            .prefix("psw")
            .tempdir_in("/tmp")
            .unwrap();
        let sb = psbench::engines::start(SandboxSpec::new(name, Home::new(dir.path())))
            .expect("starting a sandbox of the system mariadbd");
        let monitor = std::cell::RefCell::new(sb.admin_endpoint().connect().unwrap());
        Server {
            monitor,
            sb,
            _dir: dir,
        }
    }

    fn ep(&self, db: &str) -> Endpoint {
        self.sb.tcp_endpoint().with_database(Some(db))
    }

    fn admin(&self) -> mysql::Conn {
        self.sb.admin_endpoint().connect().unwrap()
    }

    fn status(&self) -> HashMap<String, i64> {
        self.monitor
            .borrow_mut()
            .query_map("SHOW GLOBAL STATUS", |(k, v): (String, String)| (k, v))
            .unwrap()
            .into_iter()
            .filter_map(|(k, v)| v.parse().ok().map(|v| (k, v)))
            .collect()
    }

    /// Run the installed sysbench 1.0.20 against this server and return its stdout.
    fn sysbench(&self, script: &str, db: &str, args: &[String], command: &str) -> String {
        let out = Command::new("sysbench")
            .arg(script)
            .args([
                "--db-driver=mysql",
                "--mysql-host=127.0.0.1",
                &format!("--mysql-port={}", self.sb.port()),
                "--mysql-user=root",
                &format!("--mysql-password={}", self.sb.password()),
                &format!("--mysql-db={db}"),
            ])
            .args(args)
            .arg(command)
            .output()
            .expect("running sysbench (is sysbench 1.0.20 installed?)");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "sysbench {script} {command} failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }
}

const COUNTERS: &[&str] = &[
    "Com_select",
    "Com_update",
    "Com_delete",
    "Com_insert",
    "Com_begin",
    "Com_commit",
    "Com_stmt_execute",
    "Handler_read_next",
];

/// Per-event deltas of COUNTERS, as exact ratios when divisible ("Handler_read_next" may
/// not be, and is compared only where it is deterministic).
fn per_event(
    before: &HashMap<String, i64>,
    after: &HashMap<String, i64>,
    events: i64,
) -> HashMap<&'static str, f64> {
    COUNTERS
        .iter()
        .map(|&k| (k, (after[k] - before[k]) as f64 / events as f64))
        .collect()
}

fn describe(e: EventError) -> String {
    match e {
        EventError::Retryable { code, message } => format!("retryable {code}: {message}"),
        EventError::ConnectionLost(m) => format!("connection lost: {m}"),
        EventError::Fatal(e) => format!("fatal: {e:#}"),
    }
}

/// Run `events` events of `name` on one connection, as the driver would with one thread.
fn run_psbench(
    server: &Server,
    db: &str,
    name: &str,
    opts: &OltpOptions,
    events: i64,
) -> (QueryCounters, HashMap<&'static str, f64>) {
    // A new seed per run: repeating a run's draws would UPDATE c to the value it already
    // has, which changes nothing and counts as "other" (docs/sysbench-compat.md#read-write-other).
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let seed = SEED + RUNS.fetch_add(1, Ordering::Relaxed);
    let workload = sysbench_workload(name, opts).unwrap();
    let mut conn = server.ep(db).session().unwrap();
    let mut worker = workload.worker(0, 1, seed, &mut conn).unwrap();
    let mut counters = QueryCounters::default();
    let before = server.status();
    for _ in 0..events {
        worker
            .event(&mut conn, &mut counters)
            .unwrap_or_else(|e| panic!("{name}: {}", describe(e)));
    }
    let after = server.status();
    (counters, per_event(&before, &after, events))
}

/// sysbench's read/write/other totals from its final report.
fn sysbench_rwo(stdout: &str) -> [u64; 3] {
    let value = |label: &str| -> u64 {
        stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix(label))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no '{label}' in sysbench output:\n{stdout}"))
    };
    [value("read:"), value("write:"), value("other:")]
}

fn run_sysbench(
    server: &Server,
    db: &str,
    name: &str,
    args: &[String],
    events: i64,
) -> ([u64; 3], HashMap<&'static str, f64>) {
    // sysbench seeds from the clock's second: two runs in one second draw the same values
    // (docs/sysbench-compat.md#random-numbers), so each run gets its own seed.
    static RUNS: AtomicU64 = AtomicU64::new(1);
    let seed = RUNS.fetch_add(1, Ordering::Relaxed);
    let mut args = args.to_vec();
    args.extend([
        format!("--events={events}"),
        "--time=0".into(),
        format!("--rand-seed={seed}"),
    ]);
    let before = server.status();
    let out = server.sysbench(name, db, &args, "run");
    let after = server.status();
    (sysbench_rwo(&out), per_event(&before, &after, events))
}

/// docs/sysbench-compat.md#how-compatibility-is-tested: Com_select, update, delete, insert, begin, commit, stmt_execute per event
/// (PS mode, transactions on), and the client's reads/writes/other per event.
fn spec_row(name: &str) -> ([f64; 7], [f64; 3]) {
    match name {
        "oltp_point_select" => ([1., 0., 0., 0., 0., 0., 1.], [1., 0., 0.]),
        "oltp_read_only" => ([14., 0., 0., 0., 1., 1., 16.], [14., 0., 2.]),
        "oltp_read_write" => ([14., 2., 1., 1., 1., 1., 20.], [14., 4., 2.]),
        "oltp_write_only" => ([0., 2., 1., 1., 1., 1., 6.], [0., 4., 2.]),
        "oltp_update_index" | "oltp_update_non_index" => {
            ([0., 1., 0., 0., 0., 0., 1.], [0., 1., 0.])
        }
        "oltp_delete" => ([0., 0., 1., 0., 0., 0., 1.], [f64::NAN; 3]),
        "oltp_insert" => ([0., 0., 0., 1., 0., 0., 0.], [0., 1., 0.]),
        "select_random_points" | "select_random_ranges" => {
            ([1., 0., 0., 0., 0., 0., 1.], [1., 0., 0.])
        }
        _ => unreachable!("{name}"),
    }
}

fn com_row(d: &HashMap<&'static str, f64>) -> [f64; 7] {
    let mut row = [0.0; 7];
    for (i, k) in COUNTERS[..7].iter().enumerate() {
        row[i] = d[k];
    }
    row
}

fn per_event_rwo(c: &QueryCounters, events: i64) -> [f64; 3] {
    [c.reads, c.writes, c.other].map(|v| v as f64 / events as f64)
}

/// The `--rand-type=special` (sysbench's default) dataset both tools run against.
fn special_opts() -> OltpOptions {
    OltpOptions {
        table_size: 10_000,
        rand_type: RandType::Special,
        ..Default::default()
    }
}

#[test]
fn every_workload_issues_sysbench_statements_per_event() {
    let server = Server::start("stmts");
    let opts = special_opts();
    sysbench_workload("oltp_read_write", &opts)
        .unwrap()
        .prepare(&server.ep("sbtest"), 1, SEED)
        .unwrap();
    let events = 200;
    let mut failures = Vec::new();
    // Deleting workloads last: the others expect a full table (Handler_read_next = 400).
    let order = [
        "oltp_point_select",
        "oltp_read_only",
        "oltp_read_write",
        "oltp_write_only",
        "oltp_update_index",
        "oltp_update_non_index",
        "select_random_points",
        "select_random_ranges",
        "oltp_insert",
        "oltp_delete",
    ];
    for name in order {
        let (counters, ours) = run_psbench(&server, "sbtest", name, &opts, events);
        let (sb_rwo, theirs) = run_sysbench(&server, "sbtest", name, &[], events);
        let (spec_com, spec_rwo) = spec_row(name);
        if com_row(&ours) != spec_com {
            failures.push(format!(
                "{name}: psbench {:?} != spec {spec_com:?}",
                com_row(&ours)
            ));
        }
        if com_row(&theirs) != spec_com {
            failures.push(format!(
                "{name}: sysbench {:?} != spec {spec_com:?}",
                com_row(&theirs)
            ));
        }
        let sb_rwo = sb_rwo.map(|v| v as f64 / events as f64);
        if name != "oltp_delete" {
            if per_event_rwo(&counters, events) != spec_rwo || sb_rwo != spec_rwo {
                failures.push(format!(
                    "{name}: r/w/o psbench {:?}, sysbench {sb_rwo:?}, spec {spec_rwo:?}",
                    per_event_rwo(&counters, events)
                ));
            }
        } else {
            // A DELETE of an id already deleted changes nothing: "other", not "write".
            let c = counters;
            assert_eq!(c.reads, 0);
            assert_eq!(c.writes + c.other, events as u64);
            assert!(
                c.writes > 0 && c.other > 0,
                "oltp_delete under special: {c:?}"
            );
        }
        if matches!(name, "oltp_read_only" | "oltp_read_write") {
            let (a, b) = (ours["Handler_read_next"], theirs["Handler_read_next"]);
            if a != 400.0 || b != 400.0 {
                failures.push(format!(
                    "{name}: Handler_read_next psbench {a}, sysbench {b}, spec 400"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn text_protocol_and_skip_trx_match_sysbench() {
    let server = Server::start("modes");
    let opts = OltpOptions {
        table_size: 1000,
        rand_type: RandType::Special,
        ..Default::default()
    };
    sysbench_workload("oltp_read_write", &opts)
        .unwrap()
        .prepare(&server.ep("sbtest"), 1, SEED)
        .unwrap();
    let events = 100;

    let disable = OltpOptions {
        db_ps_mode: PsMode::Disable,
        ..opts.clone()
    };
    let (counters, ours) = run_psbench(&server, "sbtest", "oltp_read_write", &disable, events);
    let (sb_rwo, theirs) = run_sysbench(
        &server,
        "sbtest",
        "oltp_read_write",
        &["--db-ps-mode=disable".into(), "--table-size=1000".into()],
        events,
    );
    let want = [14., 2., 1., 1., 1., 1., 0.];
    assert_eq!(com_row(&ours), want, "psbench, --db-ps-mode=disable");
    assert_eq!(com_row(&theirs), want, "sysbench, --db-ps-mode=disable");
    assert_eq!(per_event_rwo(&counters, events), [14., 4., 2.]);
    assert_eq!(sb_rwo, [14 * 100, 4 * 100, 2 * 100]);

    // Every workload in text mode: the same statements, none of them prepared.
    for name in [
        "oltp_point_select",
        "oltp_read_only",
        "oltp_write_only",
        "oltp_update_index",
        "oltp_update_non_index",
        "select_random_points",
        "select_random_ranges",
        "oltp_delete",
    ] {
        let (_, ours) = run_psbench(&server, "sbtest", name, &disable, 50);
        let (mut want, _) = spec_row(name);
        want[6] = 0.0;
        assert_eq!(com_row(&ours), want, "{name}, --db-ps-mode=disable");
    }
    let done = OltpOptions {
        table_size: 1000,
        ..Default::default()
    };
    sysbench_workload("oltp_read_write", &done)
        .unwrap()
        .cleanup(&server.ep("sbtest"))
        .unwrap();
    sysbench_workload("oltp_read_write", &opts)
        .unwrap()
        .prepare(&server.ep("sbtest"), 1, SEED)
        .unwrap();

    let skip = OltpOptions {
        skip_trx: true,
        ..opts.clone()
    };
    let (counters, ours) = run_psbench(&server, "sbtest", "oltp_read_write", &skip, events);
    let (sb_rwo, theirs) = run_sysbench(
        &server,
        "sbtest",
        "oltp_read_write",
        &["--skip-trx=on".into(), "--table-size=1000".into()],
        events,
    );
    let want = [14., 2., 1., 1., 0., 0., 18.];
    assert_eq!(com_row(&ours), want, "psbench, --skip-trx=on");
    assert_eq!(com_row(&theirs), want, "sysbench, --skip-trx=on");
    assert_eq!(per_event_rwo(&counters, events), [14., 4., 0.]);
    assert_eq!(sb_rwo, [14 * 100, 4 * 100, 0]);
}

fn one_value(conn: &mut mysql::Conn, sql: &str) -> String {
    let v: Option<mysql::Value> = conn.query_first(sql).unwrap();
    match v.unwrap_or_else(|| panic!("no row for {sql}")) {
        mysql::Value::Bytes(b) => String::from_utf8(b).unwrap(),
        mysql::Value::Int(i) => i.to_string(),
        mysql::Value::UInt(u) => u.to_string(),
        other => format!("{other:?}"),
    }
}

/// What docs/sysbench-compat.md#how-compatibility-is-tested checks 1-4 look at, for one prepared table.
fn describe_table(conn: &mut mysql::Conn, db: &str) -> Vec<String> {
    let create: (String, String) = conn
        .query_first(format!("SHOW CREATE TABLE `{db}`.sbtest1"))
        .unwrap()
        .unwrap();
    let q = |conn: &mut mysql::Conn, sql: &str| {
        one_value(conn, &sql.replace("{t}", &format!("`{db}`.sbtest1")))
    };
    vec![
        create.1,
        q(conn, "SELECT CONCAT(COUNT(*), ' ', MIN(id), ' ', MAX(id), ' ', COUNT(DISTINCT id)) FROM {t}"),
        q(conn, "SELECT COUNT(*) FROM {t} WHERE c NOT REGEXP '^([0-9]{11}-){9}[0-9]{11}$'"),
        q(conn, "SELECT COUNT(*) FROM {t} WHERE pad NOT REGEXP '^([0-9]{11}-){4}[0-9]{11}$'"),
        q(
            conn,
            &format!(
                "SELECT GROUP_CONCAT(CONCAT(INDEX_NAME, ':', COLUMN_NAME, ':', NON_UNIQUE) ORDER BY INDEX_NAME) \
                 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME='sbtest1'"
            ),
        ),
    ]
}

fn hot_share(conn: &mut mysql::Conn, db: &str) -> f64 {
    one_value(
        conn,
        &format!("SELECT AVG(k BETWEEN 4975 AND 5051) FROM `{db}`.sbtest1"),
    )
    .parse()
    .unwrap()
}

fn checksum(conn: &mut mysql::Conn, db: &str, table: u32) -> String {
    let row: (String, Option<u64>) = conn
        .query_first(format!("CHECKSUM TABLE `{db}`.sbtest{table}"))
        .unwrap()
        .unwrap();
    row.1.expect("a checksum").to_string()
}

#[test]
fn prepare_builds_what_sysbench_prepare_builds() {
    let server = Server::start("prep");
    let opts = special_opts();
    let mut admin = server.admin();

    // psbench creates the database itself; sysbench needs it to exist.
    let before = server.status();
    sysbench_workload("oltp_read_write", &opts)
        .unwrap()
        .prepare(&server.ep("psb"), 1, SEED)
        .unwrap();
    let after = server.status();
    assert_eq!(
        after["Com_insert"] - before["Com_insert"],
        4,
        "10000 rows in 512 KiB INSERTs"
    );
    assert_eq!(
        after["Com_begin"] - before["Com_begin"],
        0,
        "no explicit transaction"
    );

    admin.query_drop("CREATE DATABASE sbtest").unwrap();
    let before = server.status();
    server.sysbench(
        "oltp_read_write",
        "sbtest",
        &["--rand-type=special".into()],
        "prepare",
    );
    let after = server.status();
    assert_eq!(after["Com_insert"] - before["Com_insert"], 4);

    let ours = describe_table(&mut admin, "psb");
    let theirs = describe_table(&mut admin, "sbtest");
    assert_eq!(ours, theirs);
    assert!(ours[0].contains("AUTO_INCREMENT=10001"), "{}", ours[0]);
    assert!(ours[0].contains("KEY `k_1` (`k`)"), "{}", ours[0]);
    assert_eq!(ours[1], "10000 1 10000 10000");
    assert_eq!(
        (ours[2].as_str(), ours[3].as_str()),
        ("0", "0"),
        "c/pad format"
    );
    for db in ["psb", "sbtest"] {
        let share = hot_share(&mut admin, db);
        assert!(
            (0.74..0.78).contains(&share),
            "{db}: k share in [4975, 5051] = {share}"
        );
    }

    // The other table shapes: client ids, a secondary index on id, no k index.
    let shape = OltpOptions {
        table_size: 100,
        auto_inc: false,
        secondary: true,
        create_secondary: false,
        ..opts.clone()
    };
    sysbench_workload("oltp_read_write", &shape)
        .unwrap()
        .prepare(&server.ep("psb2"), 1, SEED)
        .unwrap();
    admin.query_drop("CREATE DATABASE sb2").unwrap();
    let flags = [
        "--table-size=100",
        "--auto-inc=off",
        "--secondary=on",
        "--create-secondary=off",
    ];
    let flags: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    server.sysbench("oltp_read_write", "sb2", &flags, "prepare");
    let (ours, theirs) = (
        describe_table(&mut admin, "psb2"),
        describe_table(&mut admin, "sb2"),
    );
    assert_eq!(ours, theirs);
    assert!(
        ours[0].contains("KEY `xid` (`id`)") && !ours[0].contains("PRIMARY"),
        "{}",
        ours[0]
    );
    assert_eq!(ours[1], "100 1 100 100");

    // The same seed gives the same data, whatever the number of loading threads.
    let three = OltpOptions {
        tables: 3,
        table_size: 2000,
        ..opts.clone()
    };
    let w = sysbench_workload("oltp_read_only", &three).unwrap();
    w.prepare(&server.ep("seq"), 1, SEED).unwrap();
    w.prepare(&server.ep("par"), 2, SEED).unwrap();
    w.prepare(&server.ep("other"), 2, SEED + 1).unwrap();
    for t in 1..=3 {
        let (a, b) = (
            checksum(&mut admin, "seq", t),
            checksum(&mut admin, "par", t),
        );
        assert_eq!(a, b, "sbtest{t}: 1 thread vs 2 threads");
        assert_ne!(
            a,
            checksum(&mut admin, "other", t),
            "sbtest{t}: another seed"
        );
        assert_eq!(
            one_value(&mut admin, &format!("SELECT COUNT(*) FROM par.sbtest{t}")),
            "2000"
        );
    }
    assert_ne!(
        checksum(&mut admin, "seq", 1),
        checksum(&mut admin, "seq", 2)
    );

    // Like sysbench, prepare does not replace existing tables; cleanup drops them.
    let again = w.prepare(&server.ep("seq"), 1, SEED).unwrap_err();
    assert!(format!("{again:#}").contains("1050"), "{again:#}");
    w.cleanup(&server.ep("seq")).unwrap();
    let left = one_value(
        &mut admin,
        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='seq'",
    );
    assert_eq!(left, "0");
}

#[test]
fn delete_insert_keeps_ids_and_errors_are_classified() {
    let server = Server::start("inv");
    let opts = OltpOptions {
        table_size: 500,
        ..Default::default()
    };
    let ep = server.ep("sbtest");
    let w = sysbench_workload("oltp_write_only", &opts).unwrap();
    w.prepare(&ep, 1, SEED).unwrap();
    let mut admin = server.admin();
    let ids = |admin: &mut mysql::Conn| {
        one_value(
            admin,
            "SELECT CONCAT(COUNT(*), ' ', SUM(id)) FROM sbtest.sbtest1",
        )
    };
    let checksum_before = checksum(&mut admin, "sbtest", 1);
    let ids_before = ids(&mut admin);
    assert_eq!(ids_before, "500 125250");

    let mut conn = ep.session().unwrap();
    let mut worker = w.worker(0, 1, SEED, &mut conn).unwrap();
    let mut counters = QueryCounters::default();
    for _ in 0..300 {
        worker
            .event(&mut conn, &mut counters)
            .map_err(describe)
            .unwrap();
    }
    assert_eq!(
        ids(&mut admin),
        ids_before,
        "§6.9: DELETE+INSERT re-inserts the same id"
    );
    assert_ne!(
        checksum(&mut admin, "sbtest", 1),
        checksum_before,
        "rows were rewritten"
    );
    // Each event: UPDATE k, UPDATE c, DELETE, INSERT are writes; BEGIN, COMMIT other.
    assert_eq!(
        (counters.reads, counters.writes, counters.other),
        (0, 1200, 600)
    );

    // A killed connection is a lost connection; after reconnecting, statements are
    // prepared again and events run.
    let id = conn.connection_id();
    admin.query_drop(format!("KILL {id}")).unwrap();
    match worker.event(&mut conn, &mut counters) {
        Err(EventError::ConnectionLost(_)) => {}
        other => panic!(
            "expected a lost connection, got {:?}",
            other.map_err(describe)
        ),
    }
    let mut conn = ep.session().unwrap();
    worker.reconnected(&mut conn).unwrap();
    worker
        .event(&mut conn, &mut counters)
        .map_err(describe)
        .unwrap();

    // Four tables need 38 prepared statements per connection; all stay open, and a second
    // worker on the same connection reuses them without asking the server again.
    let many = OltpOptions {
        tables: 4,
        table_size: 100,
        ..Default::default()
    };
    let w = sysbench_workload("oltp_read_write", &many).unwrap();
    let many_ep = server.ep("many");
    w.prepare(&many_ep, 2, SEED).unwrap();
    let mut conn = many_ep.session().unwrap();
    let before = server.status();
    let mut worker = w.worker(0, 1, SEED, &mut conn).unwrap();
    for _ in 0..50 {
        worker
            .event(&mut conn, &mut counters)
            .map_err(describe)
            .unwrap();
    }
    let mut again = w.worker(0, 1, SEED + 1, &mut conn).unwrap();
    for _ in 0..50 {
        again
            .event(&mut conn, &mut counters)
            .map_err(describe)
            .unwrap();
    }
    let after = server.status();
    assert_eq!(
        after["Com_stmt_execute"] - before["Com_stmt_execute"],
        100 * 20
    );
    assert_eq!(after["Com_stmt_prepare"] - before["Com_stmt_prepare"], 38);

    // oltp_insert with client ids: prepare leaves the tables empty, run inserts unique ids.
    let client_ids = OltpOptions {
        auto_inc: false,
        table_size: 500,
        ..Default::default()
    };
    let w = sysbench_workload("oltp_insert", &client_ids).unwrap();
    let ins_ep = server.ep("ins");
    w.prepare(&ins_ep, 1, SEED).unwrap();
    let mut conn = ins_ep.session().unwrap();
    let mut worker = w.worker(0, 1, SEED, &mut conn).unwrap();
    let mut inserted = QueryCounters::default();
    for _ in 0..100 {
        worker
            .event(&mut conn, &mut inserted)
            .map_err(describe)
            .unwrap();
    }
    assert_eq!(
        (inserted.reads, inserted.writes, inserted.other),
        (0, 100, 0)
    );
    let rows = one_value(
        &mut admin,
        "SELECT CONCAT(COUNT(*), ' ', COUNT(DISTINCT id)) FROM ins.sbtest1",
    );
    assert_eq!(rows, "100 100");

    // A lock held by another session: the lock-wait timeout is retryable.
    admin
        .query_drop("SET GLOBAL innodb_lock_wait_timeout=1")
        .unwrap();
    let mut conn = ep.session().unwrap();
    let mut worker = sysbench_workload("oltp_update_index", &opts)
        .unwrap()
        .worker(0, 1, SEED, &mut conn)
        .unwrap();
    admin.query_drop("BEGIN").unwrap();
    admin
        .query_drop("SELECT * FROM sbtest.sbtest1 FOR UPDATE")
        .unwrap();
    match worker.event(&mut conn, &mut counters) {
        Err(EventError::Retryable { code, .. }) if code == "1205" => {}
        other => panic!(
            "expected a lock-wait timeout, got {:?}",
            other.map_err(describe)
        ),
    }
    admin.query_drop("ROLLBACK").unwrap();

    // Anything else is fatal, and the message names the statement and the server error.
    admin.query_drop("DROP TABLE sbtest.sbtest1").unwrap();
    match worker.event(&mut conn, &mut counters) {
        Err(EventError::Fatal(e)) => {
            let text = format!("{e:#}");
            assert!(
                text.contains("UPDATE sbtest1 SET k=k+1 WHERE id=?"),
                "{text}"
            );
            assert!(text.contains("1146"), "{text}");
        }
        other => panic!("expected a fatal error, got {:?}", other.map_err(describe)),
    }
}
