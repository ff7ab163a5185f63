//! The values a script keeps (`\gset`, `\aset`) as the server returned them: psbench's
//! rows in text form over MySQL's text and binary protocols agree value for value, on
//! MariaDB 10.11 and MySQL 8.0.15; and a script that keeps values and computes with them
//! prints, in every query mode and on every server, the debug() lines pgbench 15 prints.

use crate::common;

use common::pg::PgServer;
use common::{psbench, text};
use psbench::server::{Home, Sandbox, SandboxSpec};
use std::path::Path;
use std::process::Command;

/// Values of many types, kept and computed with; the SQL runs on both families.
const KEEPS: &str = r"SELECT 7 AS a, 2.5 AS d, -3 AS n, 1.5e0 AS f \gset p_
\set t debug(:p_a + 1)
\set u debug(:p_d * 2)
\set v debug(:p_n * :p_f)
SELECT :p_a * 3 AS tri \gset
\set w debug(:tri)
SELECT 1 AS r, 10 AS s UNION ALL SELECT 2, 20 \aset
\set x debug(:r + :s)
SELECT z FROM (SELECT 1 AS z) AS q WHERE z = 0 \aset
\set y debug(:t)
";

fn debug_lines(o: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("debug("))
        .map(str::to_string)
        .collect()
}

/// pgbench's lines for KEEPS, 3 transactions, on PostgreSQL in `mode`.
fn pgbench_lines(s: &PgServer, file: &Path, mode: &str) -> Vec<String> {
    let o = Command::new("pgbench")
        .args(["-h", "127.0.0.1", "-U", "postgres", "-p"])
        .arg(s.sb.port().to_string())
        .args(["-n", "-c1", "-t3", "-M", mode, "-f"])
        .arg(file)
        .arg("postgres")
        .env("PGPASSWORD", s.sb.password())
        .output()
        .unwrap();
    assert!(o.status.success(), "pgbench -M {mode}: {}", text(&o));
    debug_lines(&o)
}

fn psbench_lines(
    file: &Path,
    mode: &str,
    connection: &[String],
    env: &[(&str, &str)],
) -> Vec<String> {
    let mut cmd = psbench(Path::new("/nonexistent"));
    cmd.args(["bench", "script"])
        .arg(file)
        .args(["-M", mode, "--threads=1", "--time=0", "--events=3"])
        .args(connection);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "psbench -M {mode}: {}", text(&o));
    debug_lines(&o)
}

fn mysql_connection(sb: &Sandbox) -> Vec<String> {
    vec![
        "--mysql-user=root".into(),
        "--mysql-db=mysql".into(),
        format!("--mysql-port={}", sb.port()),
        format!(
            "--mysql-password-file={}",
            sb.state().client_defaults().display()
        ),
    ]
}

#[test]
fn kept_values_compute_as_in_pgbench_in_every_mode_and_on_every_server() {
    let pg = PgServer::start();
    let tmp = common::tempdir().unwrap();
    let file = tmp.path().join("keeps.sql");
    std::fs::write(&file, KEEPS).unwrap();
    let reference = pgbench_lines(&pg, &file, "simple");
    // Six debug() calls a transaction, three transactions.
    assert_eq!(reference.len(), 3 * 6, "{reference:?}");
    assert!(reference[0].ends_with("int 8"), "{reference:?}");
    let pg_connection = vec![
        "--db-driver=pgsql".to_string(),
        "--pgsql-host=127.0.0.1".into(),
        format!("--pgsql-port={}", pg.sb.port()),
        "--pgsql-user=postgres".into(),
        "--pgsql-db=postgres".into(),
    ];
    let password = pg.sb.password().to_string();
    let env = [("PSBENCH_PGSQL_PASSWORD", password.as_str())];
    for mode in ["simple", "extended", "prepared"] {
        assert_eq!(
            pgbench_lines(&pg, &file, mode),
            reference,
            "pgbench -M {mode}"
        );
        assert_eq!(
            psbench_lines(&file, mode, &pg_connection, &env),
            reference,
            "PostgreSQL, -M {mode}"
        );
    }
    let (_home, maria) = common::sandbox("keeps");
    let mut servers = vec![("MariaDB 10.11", maria, None)];
    if let Some(tree) = common::require::cached_release("mysql-8.0.15") {
        let home = common::tempdir().unwrap();
        let mut spec = SandboxSpec::new("keeps80", Home::new(home.path()));
        spec.basedir = Some(tree);
        servers.push((
            "MySQL 8.0.15",
            psbench::engines::start(spec).unwrap(),
            Some(home),
        ));
    }
    for (name, sb, _home) in &servers {
        for mode in ["simple", "prepared"] {
            assert_eq!(
                psbench_lines(&file, mode, &mysql_connection(sb), &[]),
                reference,
                "{name}, -M {mode}"
            );
        }
    }
}

/// One statement of many types, read as text over the text protocol and decoded from the
/// binary protocol (twice: MariaDB leaves out the column definitions it sent before).
fn both_protocols_agree(sb: &Sandbox) {
    let sql = "SELECT -5 AS i, CAST(4294967295 AS UNSIGNED) AS u, NULL AS z, 'ab' AS s, \
               2.50 AS dec2, 1.5e0 AS f, CAST(-7 AS SIGNED) AS neg, \
               CAST('2026-12-05 10:11:12' AS DATETIME) AS dt, \
               CAST('2026-12-05 10:11:12.000005' AS DATETIME(6)) AS dt6, \
               CAST('2026-12-05' AS DATE) AS d, CAST('-26:03:04' AS TIME) AS t, \
               CAST(300 AS UNSIGNED) + 0 AS big, YEAR('2026-01-01') AS y";
    let mut s = sb.admin_endpoint().session().unwrap();
    let text_rows = s.query_rows(sql).unwrap().expect("a result set");
    assert_eq!(text_rows.rows.len(), 1);
    assert_eq!(text_rows.columns[0], "i");
    assert_eq!(text_rows.rows[0][2], None);
    assert_eq!(text_rows.rows[0][7].as_deref(), Some("2026-12-05 10:11:12"));
    let mut stmt = s.prepare(sql).unwrap();
    for attempt in 0..2 {
        let binary = s
            .execute_rows(&mut stmt, &[])
            .unwrap()
            .expect("a result set");
        assert_eq!(binary, text_rows, "execution {attempt}");
    }
    // A statement without a result set has no rows; one that returns none has an empty set.
    assert_eq!(s.query_rows("DO 1").unwrap(), None);
    let empty = s
        .query_rows("SELECT 1 AS one FROM DUAL WHERE 1 = 0")
        .unwrap()
        .unwrap();
    assert_eq!(
        (empty.columns, empty.rows.len()),
        (vec!["one".to_string()], 0)
    );
}

#[test]
fn text_and_binary_rows_agree_on_mariadb() {
    let (_home, sb) = common::sandbox("rowsmaria");
    both_protocols_agree(&sb);
}

#[test]
fn text_and_binary_rows_agree_on_mysql_8_0_15() {
    let Some(tree) = common::require::cached_release("mysql-8.0.15") else {
        return;
    };
    let home = common::tempdir().unwrap();
    let mut spec = SandboxSpec::new("rows80", Home::new(home.path()));
    spec.basedir = Some(tree);
    both_protocols_agree(&psbench::engines::start(spec).unwrap());
}
