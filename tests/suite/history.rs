//! The results history on the built binary: documents added once, series listed and shown,
//! a regression that fails `history check` until accepted, an improvement that never fails.
//! Every run has its own home, so the user's history is never touched.

use crate::common;

use common::{psbench, text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/report-study");

fn run(home: &Path, args: &[&str]) -> Output {
    psbench(home).arg("history").args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// The fixture as if run `days` later with default's point_select count times `factor`.
fn later_copy(dir: &Path, days: u64, factor: f64) -> PathBuf {
    let mut doc = common::days_later(FIXTURE, days);
    for c in doc["cost"].as_array_mut().unwrap() {
        if c["variant"] == "default" && c["step"] == "point_select" {
            let v = c["ir_per_txn"].as_f64().unwrap();
            c["ir_per_txn"] = Value::from(v * factor);
        }
    }
    common::write_document(dir, &format!("day{days}"), &doc)
}

/// Add a results document to the history in `home`, which must succeed.
fn import_ok(home: &Path, dir: &Path) {
    let o = run(home, &["import", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
}

/// The number of the series listed with `what` in its first line.
fn series_of(list: &str, what: &str) -> String {
    list.lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no series '{what}' in:\n{list}"))
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn a_document_is_added_once_and_its_series_listed_and_shown() {
    let home = tempfile::tempdir().unwrap();
    let o = run(home.path(), &["import", FIXTURE]);
    assert!(o.status.success(), "{}", text(&o));
    // 4 counts, and throughput and server CPU of 2 variants × 2 steps × 2 thread counts.
    assert!(
        stdout(&o).contains("history: 20 points added to"),
        "{}",
        text(&o)
    );
    assert!(home.path().join("history.sqlite").is_file());
    let again = run(home.path(), &["import", FIXTURE]);
    assert!(
        stdout(&again).contains("was already in"),
        "{}",
        text(&again)
    );

    let list = stdout(&run(home.path(), &[]));
    assert_eq!(
        list.lines()
            .filter(|l| l.contains(" points, newest "))
            .count(),
        20,
        "{list}"
    );
    let id = series_of(
        &list,
        "mariadb point_select (cost mode), instructions per transaction",
    );
    let shown = run(home.path(), &[&id]);
    assert!(shown.status.success(), "{}", text(&shown));
    assert!(
        stdout(&shown).contains("No change in 1 points."),
        "{}",
        text(&shown)
    );
    let csv = stdout(&run(home.path(), &[&id, "--csv"]));
    assert!(
        csv.starts_with("point,date,release,binary_sha256,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 2, "{csv}");

    let missing = run(home.path(), &["999"]);
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("has no series 999"), "{err}");
}

#[test]
fn a_regression_fails_the_check_until_accepted_and_a_wobble_never_does() {
    let home = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    let import = |dir: &Path| import_ok(home.path(), dir);
    import(Path::new(FIXTURE));
    // 0.2% more instructions: within the 1% a count must move.
    import(&later_copy(docs.path(), 1, 1.002));
    let check = run(home.path(), &["check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check));
    assert!(
        stdout(&check).contains("20 series with an earlier point checked in"),
        "{}",
        text(&check)
    );
    assert!(stdout(&check).contains(": 0 regressions, 0 improvements"));

    // 5% more: a regression, the exit code says so, the series shows the change.
    import(&later_copy(docs.path(), 2, 1.05));
    let check = run(home.path(), &["check"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    let out = stdout(&check);
    let line = out
        .lines()
        .find(|l| l.starts_with("regression: series"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("point_select (cost mode), instructions per transaction"),
        "{line}"
    );
    // Against the mean of the two earlier points: 1.05 / 1.001 − 1.
    assert!(line.contains(" is +4.9% against "), "{line}");
    assert!(String::from_utf8_lossy(&check.stderr).contains("1 regression (above;"));
    let id = line
        .trim_start_matches("regression: series ")
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let shown = stdout(&run(home.path(), &[&id]));
    assert!(shown.contains("change between point"), "{shown}");
    let newest = shown
        .lines()
        .filter(|l| l.contains("day2"))
        .find_map(|l| l.split_whitespace().next())
        .unwrap()
        .to_string();

    let accept = run(
        home.path(),
        &[
            "accept",
            &id,
            &newest,
            "--why",
            "new default instruments",
            "--by",
            "ci",
        ],
    );
    assert!(accept.status.success(), "{}", text(&accept));
    let check = run(home.path(), &["check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check));
    assert!(stdout(&run(home.path(), &[&id])).contains("(accepted by ci: new default instruments)"));

    // 8% fewer than the accepted level: an improvement, which never fails.
    import(&later_copy(docs.path(), 3, 1.05 * 0.92));
    let check = run(home.path(), &["check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check));
    assert!(
        stdout(&check).contains("improvement: series"),
        "{}",
        text(&check)
    );
}

#[test]
fn a_file_that_is_not_this_history_is_refused_in_one_line_and_left_as_it_was() {
    let home = tempfile::tempdir().unwrap();
    let refused = |file: &Path, cause: &str| {
        let before = std::fs::read(file).unwrap();
        let o = psbench(home.path())
            .arg("--history")
            .arg(file)
            .args(["history", "import", FIXTURE])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(cause), "{err}");
        assert_eq!(std::fs::read(file).unwrap(), before, "the file was changed");
    };
    let corrupt = home.path().join("corrupt.sqlite");
    std::fs::write(
        &corrupt,
        "not a database at all, but long enough to look like a header",
    )
    .unwrap();
    refused(&corrupt, "not a psbench results history");

    let newer = home.path().join("newer.sqlite");
    let db = rusqlite::Connection::open(&newer).unwrap();
    db.execute_batch("CREATE TABLE series (id INTEGER); PRAGMA user_version = 7;")
        .unwrap();
    drop(db);
    refused(
        &newer,
        "a results history of schema version 7, which this psbench (version 1) cannot read",
    );

    let other = home.path().join("other.sqlite");
    let db = rusqlite::Connection::open(&other).unwrap();
    db.execute_batch("CREATE TABLE invoices (id INTEGER);")
        .unwrap();
    drop(db);
    refused(&other, "an SQLite database of something else");

    // A results directory that is not there: one line, exit 2, nothing created.
    let o = run(home.path(), &["import", "/nonexistent/results"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stderr).trim().lines().count(), 1);
    assert!(!home.path().join("history.sqlite").exists());

    // The gate's check on a mistyped path fails, rather than passing on a history it made
    // empty; the readers make nothing.
    let typo = home.path().join("nodir").join("h.sqlite");
    for args in [
        &["history", "check"][..],
        &["history"],
        &["history", "--html", "p.html"],
    ] {
        let o = psbench(home.path())
            .arg("--history")
            .arg(&typo)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("h.sqlite: no results history there"), "{err}");
        assert!(
            !typo.parent().unwrap().exists(),
            "{args:?} made {}",
            typo.display()
        );
    }
}

#[test]
fn a_replayed_check_shows_the_regression_a_gate_would_have_caught_at_the_time() {
    let (home, docs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // A 5% step, then a point at the new level.
    for doc in [
        PathBuf::from(FIXTURE),
        later_copy(docs.path(), 1, 1.05),
        later_copy(docs.path(), 2, 1.05),
    ] {
        import_ok(home.path(), &doc);
    }
    // The newest point is no regression against the level since the change.
    let plain = exits(home.path(), &["check"], 0);
    assert!(!plain.contains("regression: series"), "{plain}");
    // Replayed, the point of the step is the regression a check run then would have failed.
    let out = exits(home.path(), &["check", "--replay"], 0);
    let caught: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("at the time: regression: series"))
        .collect();
    assert!(!caught.is_empty(), "{out}");
    assert!(
        caught.iter().all(|l| l.contains(" is +5.0% against ")),
        "{out}"
    );
}

/// `psbench history ARGS`'s output, after checking its exit code.
fn exits(home: &Path, args: &[&str], code: i32) -> String {
    let o = run(home, args);
    assert_eq!(o.status.code(), Some(code), "{}", text(&o));
    stdout(&o)
}
