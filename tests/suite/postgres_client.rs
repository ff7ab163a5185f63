//! psbench's own PostgreSQL client against a real server (Debian's PostgreSQL 15 in a
//! sandbox): prepared statements with text parameters, rows counted, affected rows from the
//! command tags, the server's errors by SQLSTATE with the session still usable, and a
//! connection the server ended seen as lost.

use crate::common;

use psbench::connection::postgres::PgError;
use psbench::server::{Home, Sandbox, SandboxSpec};

fn sandbox(home: &std::path::Path) -> Sandbox {
    let mut s = SandboxSpec::new("client", Home::new(home));
    s.family = Some(psbench::results::Family::Postgres);
    psbench::engines::start(s).unwrap()
}

#[test]
fn prepared_statements_count_rows_and_changes() {
    let home = common::tempdir().unwrap();
    let sb = sandbox(home.path());
    let mut c = sb.state().pg_tcp_endpoint().connect().unwrap();
    let pid = c.query("SELECT pg_backend_pid()").unwrap()[0][0]
        .clone()
        .unwrap();
    assert_eq!(pid, c.backend_pid().to_string());

    c.run("CREATE TABLE t (id int PRIMARY KEY, k int NOT NULL, c char(10))")
        .unwrap();
    let insert = c
        .prepare("INSERT INTO t (id, k, c) VALUES ($1, $2, $3)")
        .unwrap();
    assert_eq!((insert.params(), insert.columns()), (3, 0));
    for i in 1..=5 {
        let id = i.to_string();
        let out = c
            .execute(&insert, &[Some(id.as_bytes()), Some(b"7"), None])
            .unwrap();
        assert_eq!((out.result_set, out.rows, out.affected_rows), (false, 0, 1));
    }
    let range = c
        .prepare("SELECT c FROM t WHERE id BETWEEN $1 AND $2")
        .unwrap();
    assert_eq!(range.columns(), 1);
    let out = c.execute(&range, &[Some(b"2"), Some(b"4")]).unwrap();
    assert_eq!((out.result_set, out.rows), (true, 3));
    let none = c.execute(&range, &[Some(b"50"), Some(b"60")]).unwrap();
    assert_eq!((none.result_set, none.rows), (true, 0));

    let update = c.prepare("UPDATE t SET k = k + 1 WHERE k = $1").unwrap();
    assert_eq!(c.execute(&update, &[Some(b"7")]).unwrap().affected_rows, 5);
    assert_eq!(c.execute(&update, &[Some(b"7")]).unwrap().affected_rows, 0);

    // BEGIN/COMMIT as text: no rows, nothing changed.
    let begin = c.execute_text("BEGIN").unwrap();
    assert_eq!((begin.result_set, begin.affected_rows), (false, 0));
    let del = c.execute_text("DELETE FROM t WHERE id > 3").unwrap();
    assert_eq!(del.affected_rows, 2);
    c.execute_text("COMMIT").unwrap();
    let sel = c.execute_text("SELECT * FROM t").unwrap();
    assert_eq!((sel.result_set, sel.rows), (true, 3));
}

#[test]
fn server_errors_carry_their_sqlstate_and_leave_the_session_usable() {
    let home = common::tempdir().unwrap();
    let sb = sandbox(home.path());
    let mut c = sb.state().pg_tcp_endpoint().connect().unwrap();
    c.run("CREATE TABLE u (id int PRIMARY KEY)").unwrap();
    let ins = c.prepare("INSERT INTO u VALUES ($1)").unwrap();
    c.execute(&ins, &[Some(b"1")]).unwrap();
    match c.execute(&ins, &[Some(b"1")]) {
        Err(PgError::Server { code, .. }) => assert_eq!(code, "23505"),
        other => panic!("a duplicate key gave {other:?}"),
    }
    assert!(matches!(c.execute(&ins, &[]), Err(PgError::Protocol(_))));
    match c.prepare("SELECT nope FROM u") {
        Err(PgError::Server { code, .. }) => assert_eq!(code, "42703"),
        other => panic!("an unknown column gave {other:?}"),
    }
    // Still in step after each failure.
    assert_eq!(c.execute(&ins, &[Some(b"2")]).unwrap().affected_rows, 1);
    assert_eq!(c.execute_text("SELECT * FROM u").unwrap().rows, 2);

    // A backend the server ends: the next statement sees the connection lost.
    let mut admin = sb.state().pg_admin_endpoint().connect().unwrap();
    admin
        .run(&format!("SELECT pg_terminate_backend({})", c.backend_pid()))
        .unwrap();
    let lost = c.execute(&ins, &[Some(b"3")]);
    assert!(
        matches!(lost, Err(PgError::Io(_)) | Err(PgError::Server { .. })),
        "{lost:?}"
    );
    assert!(c.execute(&ins, &[Some(b"4")]).is_err());
}
