//! The history as a page, read as a reader's browser renders it: three runs of a real sweep
//! (MySQL 5.7.19 to 9.7.2, cost mode) in one history, `psbench history --html` written, and
//! headless Chromium's DOM holding every series `psbench history` lists and every change
//! `psbench history N` reports, in the same words.

use crate::common;

use common::{psbench, text};
use std::path::{Path, PathBuf};
use std::process::Command;

const SWEEP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/first-screen/mysql-sweep"
);

/// The sweep as run again `days` later.
fn again(dir: &Path, days: u64) -> PathBuf {
    common::write_document(
        dir,
        &format!("sweep{days}"),
        &common::days_later(SWEEP, days),
    )
}

fn ok(home: &Path, args: &[&str]) -> String {
    let o = psbench(home).args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", text(&o));
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// Text as the DOM dump escapes it.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[test]
fn every_series_and_every_change_of_three_sweeps_is_on_the_rendered_page() {
    let Some(chromium) = common::require::chromium() else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let home = tmp.path().join("home");
    for days in 0..3 {
        let dir = again(tmp.path(), days);
        ok(&home, &["history", "import", dir.to_str().unwrap()]);
    }
    let list = ok(&home, &["history"]);
    let ids: Vec<String> = list
        .lines()
        .filter(|l| l.contains(" points, newest"))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert!(ids.len() >= 4, "the sweep's series:\n{list}");
    let page = tmp.path().join("history.html");
    ok(&home, &["history", "--html", page.to_str().unwrap()]);
    let o = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--window-size=1400,900",
            "--dump-dom",
        ])
        .arg(format!(
            "--user-data-dir={}",
            tmp.path().join("profile").display()
        ))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(dom.contains("</article>"), "no page rendered: {}", text(&o));
    let mut changes = 0;
    for id in &ids {
        assert!(
            dom.contains(&format!("id=\"series-{id}\"")),
            "series {id} is not on the page"
        );
        // Each change `history N` reports, on the page in the same words.
        let shown = ok(&home, &["history", id]);
        let change = |l: &&str| {
            let l = l.trim_start();
            l.starts_with("change ") || l.starts_with("pending change ")
        };
        for line in shown.lines().filter(change) {
            changes += 1;
            assert!(
                dom.contains(&escaped(line.trim())),
                "series {id}: the change '{}' is not on the page",
                line.trim()
            );
        }
    }
    assert!(
        changes > 0,
        "three sweeps over MySQL 5.7 to 9.7 show changes"
    );
}
