//! A study of a replay step: a capture of sysbench on MariaDB replayed on two variants
//! (performance_schema off and on), each turn on the dump taken when the capture began, and
//! counted per statement by cost mode; and
//! the study files a replay step refuses before any server starts, exit 2.

use crate::common;

use common::capture::capture;
use common::sysbench::Server;
use common::{plan_in, results, run_in, text};

const PG_LINE: &str = "2026-12-07 01:50:41.220 UTC [123] LOG:  statement: SELECT 1\n";

#[test]
fn a_replay_step_refuses_what_it_cannot_replay_before_anything_starts() {
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("pg.log"), PG_LINE).unwrap();
    std::fs::write(dir.join("notes.txt"), "\n\nSELECT secret FROM t;\n").unwrap();
    let head = "name = \"m\"\n[[variant]]\nname = \"a\"\n";
    let step = "[[workload]]\nname = \"r\"\nworkload = \"replay\"\n";
    for (extra, words) in [
        ("log = \"nosuch.log\"\n", "cannot read log"),
        (
            "log = \"notes.txt\"\n",
            "notes.txt:3: not a MySQL or MariaDB",
        ),
        ("log = \"pg.log\"\n", "PostgreSQL"),
        (
            "log = \"pg.log\"\npace = \"slow\"\n",
            "pace 'slow' is not one of recorded, fast",
        ),
        (
            "log = \"pg.log\"\npace = \"fast\"\nspeed = 2.0\n",
            "speed goes with",
        ),
        ("log = \"pg.log\"\nthreads = [4]\n", "it takes no threads"),
        ("", "names its captured log"),
        (
            "log = \"pg.log\"\n[[workload]]\nworkload = \"oltp_point_select\"\n",
            "the study's only workload step",
        ),
    ] {
        let o = plan_in(dir, &format!("{head}{step}{extra}"));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", text(&o));
        assert!(err.contains(words), "{extra:?}: no {words:?} in {err}");
        assert!(!err.contains("secret"), "a log's text is not shown: {err}");
        assert!(!dir.join("home/sandboxes").exists(), "{extra:?}");
    }
    let o = plan_in(
        dir,
        &format!("schedule = \"alternate\"\n{head}{step}log = \"pg.log\"\n"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not cut into slices"), "{}", text(&o));
}

#[test]
fn a_replay_study_runs_the_whole_capture_on_each_variant_and_keeps_its_text_out() {
    let s = Server::start("capture");
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    let cap = capture(&s, dir, 1000, 3);
    drop(s);
    let study = "name = \"replay-ps\"\nrounds = 3\nmode = \"both\"\n\
                 [dataset]\nsql = [\"sbtest.sql\"]\n\
                 [[variant]]\nname = \"ps_off\"\noptions = { performance_schema = \"OFF\" }\n\
                 [[variant]]\nname = \"ps_on\"\noptions = { performance_schema = \"ON\" }\n\
                 [[workload]]\nname = \"shop\"\nworkload = \"replay\"\nlog = \"capture.log\"\n\
                 pace = \"fast\"\n";
    let o = run_in(dir, study, &[]);
    assert!(o.status.success(), "{}", text(&o));
    let r = results(&dir.join("out"));
    // sysbench's statements and the one that turned the log off.
    let captured: i64 = cap.counters.iter().map(|(_, n)| n).sum::<i64>() + 1;
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    for c in cells {
        assert_eq!(c["unit"], "statements", "{c}");
        assert_eq!(c["threads"], 3, "{c}");
        let classes = c["classes"].as_array().unwrap();
        let names: Vec<&str> = classes
            .iter()
            .map(|k| k["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "SELECT",
                "INSERT",
                "UPDATE",
                "DELETE",
                "BEGIN/COMMIT",
                "other"
            ]
        );
        let sent: i64 = classes
            .iter()
            .map(|k| k["transactions"].as_i64().unwrap() + k["errors"].as_i64().unwrap_or(0))
            .sum();
        assert_eq!(sent, captured, "every statement replayed once: {c}");
    }
    // Cost mode: the log's statements on one connection, each run once, per statement.
    let cost = r["cost"].as_array().unwrap();
    assert_eq!(cost.len(), 2, "{cost:?}");
    for c in cost {
        assert_eq!(c["ok"], true, "{c}");
        assert_eq!(c["unit"], "statement", "{c}");
        let ir = c["ir_per_txn"].as_f64().unwrap();
        assert!((10_000.0..10_000_000.0).contains(&ir), "{c}");
    }
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("shop replays a MySQL/MariaDB general query log: 3 session(s)"),
        "{notes}"
    );
    let md = std::fs::read_to_string(dir.join("out/summary.md")).unwrap();
    assert!(md.contains("Statements per second (shop)"), "{md}");
    assert!(!md.contains("warm-up per cell"), "{md}");
    assert!(md.contains("a replay's cell runs its whole log"), "{md}");
    // Nothing of the log's text in what the study wrote, nor in the history.
    for f in ["results.json", "summary.md", "report.html", "summary.json"] {
        let t = std::fs::read_to_string(dir.join("out").join(f)).unwrap();
        for words in ["FROM sbtest", "WHERE id", "id BETWEEN"] {
            assert!(!t.contains(words), "{f} holds {words:?}");
        }
    }
    let out = text(&o);
    let history = out
        .lines()
        .find_map(|l| l.split_once(" added to ").map(|(_, p)| p.to_string()))
        .map(|p| p.split(" (").next().unwrap_or("").trim().to_string())
        .unwrap_or_else(|| panic!("no history line in {out}"));
    let bytes = std::fs::read(&history).unwrap();
    let held = String::from_utf8_lossy(&bytes);
    assert!(held.contains("shop"), "the history holds the step");
    assert!(
        !held.contains("FROM sbtest"),
        "the history holds a statement"
    );
    println!("{md}");
}
