//! Each format read from lines as the servers write them (MariaDB 10.11 and PostgreSQL 15
//! on Debian 12; MySQL 8.0's general log as its documentation and its server write it).

use super::*;

const MARIADB_GENERAL: &str = "\
mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:
Tcp port: 33999  Unix socket: /tmp/gl/sock
Time\t\t    Id Command\tArgument
261207  1:50:28\t     5 Connect\troot@localhost on sbtest using Socket
\t\t     5 Prepare\tBEGIN
\t\t     5 Prepare\tSELECT c FROM sbtest1 WHERE id=?
\t\t     6 Connect\troot@localhost on sbtest using Socket
\t\t     5 Execute\tBEGIN
\t\t     6 Query\tselect
  2
261207  1:50:29\t     5 Execute\tSELECT c FROM sbtest1 WHERE id=501
\t\t     5 Execute\tCOMMIT
\t\t     5 Close stmt\t
\t\t     5 Quit\t
";

#[test]
fn a_mariadb_general_log_gives_each_connection_its_statements_in_order() {
    let c = Capture::parse("general.log", MARIADB_GENERAL).unwrap();
    assert_eq!(c.format, Format::GeneralLog);
    assert_eq!(c.sessions.len(), 2);
    let five: Vec<(&str, usize, Option<u64>)> = c.sessions[0]
        .iter()
        .map(|s| (s.sql.as_str(), s.line, s.at_us))
        .collect();
    assert_eq!(
        five,
        [
            ("BEGIN", 8, Some(0)),
            ("SELECT c FROM sbtest1 WHERE id=501", 11, Some(1_000_000)),
            ("COMMIT", 12, Some(1_000_000)),
        ]
    );
    // A statement's later lines belong to it.
    assert_eq!(c.sessions[1][0].sql, "select\n  2");
    assert_eq!(c.sessions[1][0].kind, StatementKind::Select);
    // Two connects, two prepares, a close and a quit.
    assert_eq!(c.skipped, 6);
    assert_eq!(c.per_kind(), [2, 0, 0, 0, 2, 0]);
}

#[test]
fn a_mysql_general_log_keeps_its_microseconds() {
    let log = "\
/usr/sbin/mysqld, Version: 8.0.15 (MySQL Community Server - GPL). started with:
Tcp port: 3306  Unix socket: /tmp/mysql.sock
Time                 Id Command    Argument
2026-12-07T01:50:28.100000Z\t    8 Connect\troot@localhost on sbtest using Socket
2026-12-07T01:50:28.100250Z\t    8 Query\tINSERT INTO t VALUES (1)
2026-12-07T01:50:28.350000Z\t    9 Query\tDELETE FROM t
";
    let c = Capture::parse("mysql.log", log).unwrap();
    assert_eq!(c.format, Format::GeneralLog);
    assert_eq!(c.sessions[0][0].at_us, Some(0));
    assert_eq!(c.sessions[1][0].at_us, Some(249_750));
    assert_eq!(c.sessions[1][0].kind, StatementKind::Delete);
}

#[test]
fn a_slow_log_at_zero_seconds_is_read_without_its_preamble() {
    let log = "\
mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:
Tcp port: 33999  Unix socket: /tmp/gl/sock
Time\t\t    Id Command\tArgument
# Time: 261207  1:50:28
# User@Host: root[root] @ localhost []
# Thread_id: 5  Schema: sbtest  QC_hit: No
# Query_time: 0.000003  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0
# Rows_affected: 0  Bytes_sent: 0
use `sbtest`;
SET timestamp=1796608228;
BEGIN;
# User@Host: root[root] @ localhost []
# Thread_id: 6  Schema: sbtest  QC_hit: No
# Query_time: 0.250000  Lock_time: 0.000007  Rows_sent: 1  Rows_examined: 1
# Rows_affected: 0  Bytes_sent: 0
SET timestamp=1796608228;
UPDATE sbtest1
  SET k=k+1 WHERE id=5;
";
    let c = Capture::parse("slow.log", log).unwrap();
    assert_eq!(c.format, Format::SlowLog);
    assert_eq!(c.sessions.len(), 2);
    assert_eq!(c.sessions[0][0].sql, "BEGIN");
    assert_eq!(c.sessions[0][0].line, 11);
    assert_eq!(
        c.sessions[1][0].sql,
        "UPDATE sbtest1\n  SET k=k+1 WHERE id=5"
    );
    assert_eq!(c.sessions[1][0].kind, StatementKind::Update);
    // An entry's time is its end: the update, 0.25 s long, began first.
    assert_eq!(c.sessions[0][0].at_us, Some(249_997));
    assert_eq!(c.sessions[1][0].at_us, Some(0));
}

const PG_STDERR: &str = "\
2026-12-07 01:50:41.219 UTC|postgres|postgres|6b1610f1.4efb|LOG:  connection authorized: user=postgres database=postgres application_name=pgbench
2026-12-07 01:50:41.220 UTC|postgres|postgres|6b1610f1.4efb|LOG:  execute <unnamed>: BEGIN;
2026-12-07 01:50:41.221 UTC|postgres|postgres|6b1610f1.4efb|LOG:  execute <unnamed>: UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;
2026-12-07 01:50:41.221 UTC|postgres|postgres|6b1610f1.4efb|DETAIL:  parameters: $1 = '4074', $2 = '42628'
2026-12-07 01:50:41.262 UTC|postgres|postgres|6b1610f1.4efc|LOG:  statement: select
\t 1
2026-12-07 01:50:41.300 UTC|postgres|postgres|6b1610f1.4efb|LOG:  execute <unnamed>: END;
";

#[test]
fn a_postgres_stderr_log_puts_the_values_into_the_executed_statement() {
    let c = Capture::parse("postgresql.log", PG_STDERR).unwrap();
    assert_eq!(c.format, Format::PgStderr);
    let first: Vec<&str> = c.sessions[0].iter().map(|s| s.sql.as_str()).collect();
    assert_eq!(
        first,
        [
            "BEGIN;",
            "UPDATE pgbench_accounts SET abalance = abalance + '4074' WHERE aid = '42628';",
            "END;"
        ]
    );
    assert_eq!(c.sessions[0][2].kind, StatementKind::Transaction);
    assert_eq!(c.sessions[1][0].sql, "select\n 1");
    assert_eq!(c.sessions[1][0].at_us, Some(42_000));
    assert_eq!(c.skipped, 1);
}

#[test]
fn a_postgres_csvlog_gives_the_same_statements() {
    let log = "\
2026-12-07 01:50:41.220 UTC,\"postgres\",\"postgres\",20219,\"[local]\",6b1610f1.4efb,13,\"BEGIN\",2026-12-07 01:50:41 UTC,3/729,0,LOG,00000,\"execute <unnamed>: BEGIN;\",,,,,,,,,\"pgbench\",\"client backend\",,0
2026-12-07 01:50:41.221 UTC,\"postgres\",\"postgres\",20219,\"[local]\",6b1610f1.4efb,14,\"UPDATE\",2026-12-07 01:50:41 UTC,3/729,0,LOG,00000,\"execute <unnamed>: UPDATE t SET a = $1;\",\"parameters: $1 = '7'\",,,,,,,,\"pgbench\",\"client backend\",,0
2026-12-07 01:50:41.262 UTC,\"postgres\",\"postgres\",20220,\"[local]\",6b1610f1.4efc,1,\"idle\",2026-12-07 01:50:41 UTC,3/731,0,LOG,00000,\"statement: select
 1\",,,,,,,,,\"psql\",\"client backend\",,0
";
    let c = Capture::parse("postgresql.csv", log).unwrap();
    assert_eq!(c.format, Format::PgCsv);
    assert_eq!(c.sessions[0][1].sql, "UPDATE t SET a = '7';");
    assert_eq!(c.sessions[1][0].sql, "select\n 1");
    assert_eq!(c.sessions[1][0].line, 3);
}

#[test]
fn a_log_in_no_known_format_names_its_first_line_and_not_its_text() {
    let e = Capture::parse("mine.log", "\n\nSELECT secret FROM t;\n").unwrap_err();
    let msg = crate::error::one_line(&e);
    assert!(
        msg.starts_with("mine.log:3: not a MySQL or MariaDB"),
        "{msg}"
    );
    assert!(!msg.contains("secret"), "{msg}");
    assert!(crate::error::is_usage(&e));
}

#[test]
fn a_line_that_breaks_a_postgres_log_is_named() {
    let log = format!("{PG_STDERR}garbage in the middle\n");
    let msg = crate::error::one_line(&Capture::parse("pg.log", &log).unwrap_err());
    assert!(
        msg.starts_with("pg.log:8: not a line of a PostgreSQL stderr log"),
        "{msg}"
    );
    let no_session = "2026-12-07 01:50:41.220 UTC [postgres] LOG:  statement: BEGIN\n";
    let msg = crate::error::one_line(&Capture::parse("pg.log", no_session).unwrap_err());
    assert!(msg.contains("carries the session (%c)"), "{msg}");
}

#[test]
fn a_log_of_connects_only_has_nothing_to_replay() {
    let log = "261207  1:50:28\t     5 Connect\troot@localhost on sbtest using Socket\n";
    let msg = crate::error::one_line(&Capture::parse("g.log", log).unwrap_err());
    assert_eq!(
        msg,
        "g.log: a MySQL/MariaDB general query log with no statement to replay"
    );
}

#[test]
fn kinds_are_read_past_comments_and_parentheses() {
    for (sql, kind) in [
        ("/* app=web */ SELECT 1", StatementKind::Select),
        ("(SELECT 1) UNION (SELECT 2)", StatementKind::Select),
        ("-- note\ninsert into t values (1)", StatementKind::Insert),
        ("START TRANSACTION", StatementKind::Transaction),
        ("end;", StatementKind::Transaction),
        ("SET autocommit=0", StatementKind::Other),
        ("", StatementKind::Other),
    ] {
        assert_eq!(StatementKind::of(sql), kind, "{sql}");
    }
}
