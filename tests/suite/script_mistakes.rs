//! A script's mistakes: those a reading finds are refused before any server starts, with
//! file, line and pgbench's words, exit 2; those only a run finds fail their transaction,
//! counted under a study cell's errors, and stop the client of `psbench bench script` with
//! pgbench's words and exit 2.

use crate::common;

use common::{psbench, results, sandbox, text};
use std::path::Path;

/// `psbench run --plan` on a study of one script step running `body`.
fn plan_of(dir: &Path, body: &str) -> std::process::Output {
    std::fs::write(dir.join("bad.sql"), body).unwrap();
    let study = "name = \"m\"\n[[variant]]\nname = \"a\"\n[[workload]]\nworkload = \"script\"\n\
                 scripts = [\"bad.sql\"]\n";
    common::plan_in(dir, study)
}

#[test]
fn reading_mistakes_are_refused_with_file_line_and_pgbenchs_words() {
    let tmp = common::tempdir().unwrap();
    for (body, line, words) in [
        (
            "SELECT 1;\n\\set x 1 +\n",
            2,
            "syntax error in command \"set\"",
        ),
        ("\\set x nosuch(1)\n", 1, "unexpected function name"),
        (
            "SELECT 1;\n\n\\sleep 1 hours\n",
            3,
            "unrecognized time unit",
        ),
        ("\\gset\n", 1, "gset must follow an SQL command"),
        ("\\shell ls\n", 1, "\\shell"),
        ("\\setshell x echo 1\n", 1, "\\setshell"),
        ("\\if 1\nSELECT 1;\n", 1, "\\if"),
        ("\\nosuch\n", 1, "invalid command"),
    ] {
        let o = plan_of(tmp.path(), body);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{body:?}: {}", text(&o));
        let at = format!("bad.sql:{line}: ");
        assert!(err.contains(&at), "{body:?}: no {at:?} in {err}");
        assert!(err.contains(words), "{body:?}: no {words:?} in {err}");
        // Nothing started, nothing written.
        assert!(!tmp.path().join("home/sandboxes").exists(), "{body:?}");
    }
}

/// `psbench bench script FILE` against the sandbox, 20 transactions.
fn bench(sb: &psbench::server::Sandbox, file: &Path) -> std::process::Output {
    psbench(Path::new("/nonexistent"))
        .args(["bench", "script"])
        .arg(file)
        .args([
            "--threads=1",
            "--time=0",
            "--events=20",
            "--mysql-user=root",
        ])
        .arg("--mysql-db=mysql")
        .arg(format!("--mysql-port={}", sb.port()))
        .arg(format!(
            "--mysql-password-file={}",
            sb.state().client_defaults().display()
        ))
        .output()
        .unwrap()
}

const RUN_TIME: &[(&str, &str)] = &[
    ("\\set x 1 / 0\n", "division by zero"),
    ("\\set x :nosuch + 1\n", "nosuch"),
    ("\\set x random(5, 1)\n", "empty range given to random"),
    (
        "\\set x random_zipfian(1, 10, 0.5)\n",
        "zipfian parameter must be in range",
    ),
    ("\\set x 9223372036854775807 + 1\n", "out of range"),
    (
        "SELECT 1 FROM DUAL WHERE 1 = 0 \\gset\n",
        "expected one row, got 0",
    ),
    (
        "SELECT 1 AS v UNION ALL SELECT 2 \\gset\n",
        "expected one row, got 2",
    ),
];

#[test]
fn run_time_failures_stop_a_bench_client_with_pgbenchs_words() {
    let (_home, sb) = sandbox("m");
    let tmp = common::tempdir().unwrap();
    for (i, (body, words)) in RUN_TIME.iter().enumerate() {
        let file = tmp.path().join(format!("f{i}.sql"));
        std::fs::write(&file, body).unwrap();
        let o = bench(&sb, &file);
        assert_eq!(o.status.code(), Some(2), "{body:?}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(words), "{body:?}: no {words:?} in {err}");
        assert!(err.contains(&format!("f{i}.sql:1")), "{body:?}: {err}");
        assert!(err.contains("aborted"), "{body:?}: {err}");
    }
}

#[test]
fn run_time_failures_count_as_a_cells_errors() {
    let tmp = common::tempdir().unwrap();
    // One transaction in about four divides by zero.
    std::fs::write(
        tmp.path().join("some.sql"),
        "\\set x random(0, 3)\n\\set y 12 / :x\nSELECT :y;\n",
    )
    .unwrap();
    let study = "name = \"e\"\nthreads = [1]\nrounds = 1\nduration = 1\nwarmup = 0\n\
                 [[variant]]\nname = \"a\"\n[[workload]]\nname = \"some\"\nworkload = \"script\"\n\
                 scripts = [\"some.sql\"]\n";
    std::fs::write(tmp.path().join("s.toml"), study).unwrap();
    let out = tmp.path().join("out");
    let o = psbench(&tmp.path().join("home"))
        .arg("run")
        .arg(tmp.path().join("s.toml"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = results(&out);
    let c = &r["cells"][0];
    let (errors, txns) = (
        c["errors"].as_u64().unwrap(),
        c["transactions"].as_u64().unwrap(),
    );
    assert!(txns > 100, "{c}");
    let share = errors as f64 / (errors + txns) as f64;
    assert!(
        (0.15..0.35).contains(&share),
        "{errors} errors beside {txns} transactions"
    );
}
