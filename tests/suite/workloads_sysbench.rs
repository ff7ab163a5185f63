//! The sysbench workloads' statements against a real MariaDB sandbox, with the installed
//! sysbench 1.0.20 as the reference: per-event SHOW GLOBAL STATUS deltas and the client's
//! read/write/other counts, prepared and in text mode, with and without transactions
//! (docs/sysbench-compat.md#how-compatibility-is-tested). The prepared dataset is checked in
//! workloads_sysbench_prepare.rs, the events' ids, reconnects and errors in
//! workloads_sysbench_events.rs.

use crate::common;

use common::sysbench::{describe, special_opts, Server, SEED};
use psbench::workloads::sysbench::{OltpOptions, PsMode, RandType};
use psbench::workloads::{sysbench_workload, QueryCounters};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

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
