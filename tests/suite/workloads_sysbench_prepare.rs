//! sysbench's `prepare` against psbench's, on a real MariaDB sandbox with the installed
//! sysbench 1.0.20: the statements loading sends, the tables, indexes and data it leaves
//! (docs/sysbench-compat.md#how-compatibility-is-tested).

use crate::common;

use common::sysbench::{checksum, one_value, special_opts, Server, SEED};
use mysql::prelude::Queryable;
use psbench::workloads::sysbench::OltpOptions;
use psbench::workloads::sysbench_workload;

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
