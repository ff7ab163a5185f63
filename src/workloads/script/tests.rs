//! The module's tests: parsing, expressions, run-time errors, and draws compared with
//! pgbench 15.18's own (tests/data/script/, recorded with Debian 12's /usr/bin/pgbench).

use super::*;
use std::sync::Arc;

/// An `Sql` that records what it is sent and answers with fixed rows.
struct Fake {
    sent: Vec<String>,
    rows: Option<Rows>,
}

impl Sql for Fake {
    fn run_text(&mut self, sql: &str, want: bool) -> Result<Option<Rows>, EventError> {
        self.sent.push(sql.to_string());
        Ok(if want { self.rows.clone() } else { None })
    }
    fn run_prepared(
        &mut self,
        _s: usize,
        c: usize,
        p: &[Value],
        want: bool,
    ) -> Result<Option<Rows>, EventError> {
        self.sent.push(format!("{c}:{p:?}"));
        Ok(if want { self.rows.clone() } else { None })
    }
}

fn fake() -> Fake {
    Fake {
        sent: vec![],
        rows: None,
    }
}

fn client_of(scripts: Vec<(Script, u32)>, id: usize, seed: u64, clients: usize) -> Client {
    let seeding = Seeding::new(seed, clients);
    Client::new(Arc::new(scripts), id, &seeding, 1, &[], Mode::Simple)
}

fn run_err(text: &str, rows: Option<Rows>) -> String {
    let s = parse("t.sql", text).unwrap();
    let mut c = client_of(vec![(s, 1)], 0, 1, 1);
    let mut sql = Fake { sent: vec![], rows };
    match c.run(0, &mut sql, &mut Vec::new(), None) {
        Err(RunError::Script { message, .. }) => message,
        other => panic!("expected a script error, got {other:?}"),
    }
}

fn perr(text: &str) -> String {
    parse("t.sql", text).unwrap_err().to_string()
}

#[test]
fn commands_lines_and_continuations() {
    let s = parse(
        "t.sql",
        "-- c\n\\set a 1 + \\\n 2\nSELECT ';:x', :a\n  FROM t;\nBEGIN \\; SELECT 1;\nSELECT $$;$$::text \\gset p_\n",
    )
    .unwrap();
    let lines: Vec<usize> = s.commands.iter().map(Command::line).collect();
    assert_eq!(lines, vec![2, 4, 6, 7]);
    let sql: Vec<&SqlCommand> = s.sql_commands().map(|(_, c)| c).collect();
    assert_eq!(sql[0].text, "SELECT ';:x', :a\n  FROM t;");
    assert_eq!(sql[0].prepared_sql, "SELECT ';?', ?\n  FROM t;");
    assert_eq!(sql[0].params, vec!["x", "a"]);
    assert_eq!(sql[1].text, "BEGIN ; SELECT 1;");
    assert_eq!(
        sql[2].rows,
        RowsWanted::Gset {
            prefix: "p_".into()
        }
    );
    assert_eq!(sql[2].params, Vec::<String>::new());
}

#[test]
fn parse_errors_use_pgbench_words() {
    assert_eq!(
        perr("\\set x 1 +\n"),
        "t.sql:1: syntax error in command \"set\""
    );
    assert_eq!(
        perr("\n\\set x foo(1)\n"),
        "t.sql:2: unexpected function name (foo) in command \"set\""
    );
    assert_eq!(
        perr("\\set\n"),
        "t.sql:1: missing argument in command \"set\""
    );
    assert_eq!(
        perr("\\sleep 1 xs\n"),
        "t.sql:1: unrecognized time unit, must be us, ms or s (xs) in command \"sleep\""
    );
    assert_eq!(
        perr("\\foo bar\n"),
        "t.sql:1: invalid command in command \"foo\""
    );
    assert_eq!(
        perr("\\gset\n"),
        "t.sql:1: \\gset must follow an SQL command"
    );
    assert_eq!(
        perr("SELECT 1;\n\\set x 1\n\\gset\n"),
        "t.sql:3: \\gset must follow an SQL command (\\set x 1)"
    );
    assert_eq!(
        perr("\\if 1\n\\else\n\\else\n\\endif\n"),
        "t.sql:3: \\else after \\else"
    );
    assert_eq!(perr("\\if 1\n"), "t.sql:1: \\if without matching \\endif");
    assert_eq!(
        perr("\\shell ls\n"),
        "t.sql:1: \\shell is not supported: a study file runs no shell commands"
    );
    assert_eq!(
        perr("\\set x 1 < 2 < 3\n"),
        "t.sql:1: syntax error in command \"set\""
    );
    assert_eq!(
        perr("\\set x abs(1,2)\n"),
        "t.sql:1: unexpected number of arguments (abs) in command \"set\""
    );
}

fn value_of(expr: &str) -> Value {
    let s = parse("t.sql", &format!("\\set r {expr}\n")).unwrap();
    let mut c = client_of(vec![(s, 1)], 0, 1, 1);
    c.run(0, &mut fake(), &mut Vec::new(), None).unwrap();
    c.variable("r").unwrap().clone()
}

#[test]
fn expressions_follow_pgbench() {
    assert_eq!(value_of("1 + 2 * 3"), Value::Int(7));
    assert_eq!(value_of("-2 * 3 % 4"), Value::Int(-2));
    assert_eq!(value_of("1 | 2 + 4"), Value::Int(7));
    assert_eq!(value_of("~1 + 1"), Value::Int(-3));
    assert_eq!(value_of("NOT 1 = 2 AND TRUE"), Value::Bool(true));
    assert_eq!(value_of("5 / 2.0"), Value::Double(2.5));
    assert_eq!(
        value_of("CASE WHEN 1 > 2 THEN 1 WHEN 2 > 1 THEN 2 END"),
        Value::Int(2)
    );
    assert_eq!(value_of("CASE WHEN false THEN 1 END"), Value::Null);
    assert_eq!(value_of("NULL + 1"), Value::Null);
    assert_eq!(value_of("NULL IS NULL"), Value::Bool(true));
    assert_eq!(value_of("1 NOTNULL"), Value::Bool(true));
    assert_eq!(value_of("false AND 1/0 = 1"), Value::Bool(false));
    assert_eq!(value_of("true OR 1/0 = 1"), Value::Bool(true));
    assert_eq!(value_of("-9223372036854775808"), Value::Int(i64::MIN));
    assert_eq!(value_of("greatest(1, 2.5, 2)"), Value::Double(2.5));
    assert_eq!(value_of("int(2.5) + int(3.5)"), Value::Int(6));
    assert_eq!(value_of("mod(-7, 3)"), Value::Int(-1));
}

#[test]
fn run_time_errors() {
    assert_eq!(run_err("\\set x 1 / 0\n", None), "division by zero");
    assert_eq!(
        run_err("\\set x :nope\n", None),
        "undefined variable \"nope\""
    );
    assert_eq!(
        run_err("\\set x random(5, 1)\n", None),
        "empty range given to random"
    );
    assert_eq!(
        run_err("\\set x 9223372036854775807 + 1\n", None),
        "bigint add out of range"
    );
    assert_eq!(
        run_err("\\set x random_gaussian(1, 10, 1.5)\n", None),
        "gaussian parameter must be at least 2.000000 (not 1.500000)"
    );
    assert_eq!(
        run_err("SELECT 1 \\gset\n", None),
        "expected one row, got 0"
    );
    let two = Rows {
        columns: vec!["a".into()],
        rows: vec![vec![Some("1".into())], vec![Some("2".into())]],
    };
    assert_eq!(
        run_err("SELECT 1 \\gset\n", Some(two)),
        "expected one row, got 2"
    );
}

#[test]
fn gset_stores_strings_and_simple_mode_substitutes() {
    let s = parse(
        "t.sql",
        "SELECT 1 AS a \\gset p_\n\\set b :p_a * 2\nSELECT :b::int, :zz, ':b';\n",
    )
    .unwrap();
    let mut c = client_of(vec![(s, 1)], 0, 1, 1);
    let rows = Rows {
        columns: vec!["a".into()],
        rows: vec![vec![Some("21".into())]],
    };
    let mut sql = Fake {
        sent: vec![],
        rows: Some(rows),
    };
    c.run(0, &mut sql, &mut Vec::new(), None).unwrap();
    assert_eq!(c.variable("p_a"), Some(&Value::Text("21".into())));
    assert_eq!(sql.sent[1], "SELECT 42::int, :zz, '42';");
}

/// The recorded debug lines of a reference file (comment lines start with '#').
fn reference(name: &str) -> Vec<String> {
    let path = format!("{}/tests/data/script/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The script quoted in a reference file's comments, after the `# ` + first-line header.
fn quoted_script(name: &str, marker: Option<&str>) -> String {
    let path = format!("{}/tests/data/script/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    let mut on = marker.is_none();
    for l in text.lines().skip(1).filter(|l| l.starts_with("# ")) {
        let l = &l[2..];
        if let Some(m) = marker {
            if l.ends_with(".sql:") {
                on = l == m;
                continue;
            }
        }
        if on && !l.starts_with("then:") {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

#[test]
fn draws_match_pgbench_one_client() {
    for (file, seed, txns) in [("x_seed42.txt", 42, 60), ("x_seed0.txt", 0, 3)] {
        let s = parse("x.sql", &quoted_script(file, None)).unwrap();
        let mut c = client_of(vec![(s, 1)], 0, seed, 1);
        let mut out = Vec::new();
        for _ in 0..txns {
            let k = c.choose();
            c.run(k, &mut fake(), &mut out, None).unwrap();
        }
        let got: Vec<String> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(got, reference(file), "{file}");
    }
}

#[test]
fn weighted_choice_matches_pgbench_one_client() {
    let a = parse("a.sql", &quoted_script("ab_c1_seed42.txt", Some("a.sql:"))).unwrap();
    let b = parse("b.sql", &quoted_script("ab_c1_seed42.txt", Some("b.sql:"))).unwrap();
    let mut c = client_of(vec![(a, 3), (b, 1)], 0, 42, 1);
    let mut out = Vec::new();
    for _ in 0..60 {
        let k = c.choose();
        c.run(k, &mut fake(), &mut out, None).unwrap();
    }
    let got: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(got, reference("ab_c1_seed42.txt"));
}

/// Rows "client script v…" recorded from the server after a multi-client run.
fn multi_client(file: &str, scripts: Vec<(Script, u32)>, seed: u64, clients: usize, txns: usize) {
    let expect = reference(file);
    let seeding = Seeding::new(seed, clients);
    let scripts = Arc::new(scripts);
    let mut got = Vec::new();
    for id in 0..clients {
        let mut c = Client::new(Arc::clone(&scripts), id, &seeding, 1, &[], Mode::Simple);
        let mut sql = fake();
        for _ in 0..txns {
            let k = c.choose();
            c.run(k, &mut sql, &mut Vec::new(), None).unwrap();
        }
        for stmt in sql.sent {
            let inside = stmt
                .rsplit_once("VALUES (")
                .unwrap()
                .1
                .trim_end_matches(");");
            got.push(inside.split(", ").collect::<Vec<_>>().join(" "));
        }
    }
    assert_eq!(got, expect, "{file}");
}

#[test]
fn draws_match_pgbench_several_clients() {
    let a = parse(
        "ma.sql",
        &quoted_script("ab_c2_seed42.txt", Some("ma.sql:")),
    )
    .unwrap();
    let b = parse(
        "mb.sql",
        &quoted_script("ab_c2_seed42.txt", Some("mb.sql:")),
    )
    .unwrap();
    multi_client("ab_c2_seed42.txt", vec![(a, 3), (b, 1)], 42, 2, 60);
    let x = parse("mx.sql", &quoted_script("x_c3_seed7.txt", None)).unwrap();
    // x_c3 records client, v1..v4 (no script column).
    let expect: Vec<String> = reference("x_c3_seed7.txt");
    let seeding = Seeding::new(7, 3);
    let scripts = Arc::new(vec![(x, 1)]);
    let mut got = Vec::new();
    for id in 0..3 {
        let mut c = Client::new(Arc::clone(&scripts), id, &seeding, 1, &[], Mode::Simple);
        let mut sql = fake();
        for _ in 0..30 {
            c.run(0, &mut sql, &mut Vec::new(), None).unwrap();
        }
        for stmt in sql.sent {
            let inside = stmt
                .rsplit_once("VALUES (")
                .unwrap()
                .1
                .trim_end_matches(");");
            let f: Vec<&str> = inside.split(", ").collect();
            got.push(format!("{} {} {} {} {}", f[0], f[2], f[3], f[4], f[5]));
        }
    }
    assert_eq!(got, expect);
}
