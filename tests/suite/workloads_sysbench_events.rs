//! The sysbench workloads' events on a real MariaDB sandbox: DELETE+INSERT keeps the ids,
//! lost connections and reconnects, prepared statements kept per connection, client ids, and
//! how server errors are classified (docs/sysbench-compat.md#how-compatibility-is-tested).

use crate::common;

use common::sysbench::{checksum, describe, one_value, Server, SEED};
use mysql::prelude::Queryable;
use psbench::workloads::sysbench::OltpOptions;
use psbench::workloads::{sysbench_workload, EventError, QueryCounters};

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
