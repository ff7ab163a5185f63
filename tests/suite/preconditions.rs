//! A test whose precondition is missing fails under `CI=true`, naming what is missing and the
//! command that provides it, and says what it skipped elsewhere: shown by taking Chromium off
//! the PATH and pointing psbench's cache at an empty directory, then running a test that needs
//! them in a child process of this binary.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

/// Needs Chromium and MySQL 5.7.22 in psbench's cache (as the report and MySQL tests do), and
/// checks both are usable: Chromium prints its version, the release holds its mysqld.
#[test]
fn chromium_and_a_cached_release_are_usable() {
    let Some(chromium) = common::require::chromium() else {
        return;
    };
    let Some(basedir) = common::require::cached_release("mysql-5.7.22") else {
        return;
    };
    let o = Command::new(&chromium).arg("--version").output().unwrap();
    assert!(o.status.success(), "{}", common::text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Chromium"));
    assert!(
        basedir.join("bin/mysqld").is_file(),
        "{}",
        basedir.display()
    );
}

/// The test above in a child process, with `CI` set or not, `PATH` and `PSBENCH_CACHE` given.
fn child(ci: bool, path: &str, cache: &Path) -> Output {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([
        "--exact",
        &common::test_name(module_path!(), "chromium_and_a_cached_release_are_usable"),
        "--nocapture",
    ])
    .env("PATH", path)
    .env("PSBENCH_CACHE", cache)
    .env_remove("XDG_CACHE_HOME");
    match ci {
        true => c.env("CI", "true"),
        false => c.env_remove("CI"),
    };
    c.output().unwrap()
}

#[test]
fn a_missing_precondition_fails_under_ci_and_is_said_elsewhere() {
    let tmp = common::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let no_chromium = empty.to_str().unwrap();

    // Chromium off the PATH: under CI the test fails, saying what is missing and how to get it.
    let o = child(true, no_chromium, &empty);
    let text = common::text(&o);
    assert!(!o.status.success(), "{text}");
    assert!(
        text.contains("precondition missing under CI=true: chromium is not on the PATH; provide it with: bash scripts/setup.sh (it installs Debian's chromium)"),
        "{text}"
    );
    // Outside CI it passes, and says what it skipped.
    let o = child(false, no_chromium, &empty);
    let text = common::text(&o);
    assert!(o.status.success(), "{text}");
    assert!(
        text.contains("SKIPPED: chromium is not on the PATH"),
        "{text}"
    );

    // Chromium found, the release not cached: the same, naming the release and its fetch.
    let Some(chromium) = common::require::chromium() else {
        return;
    };
    let path = chromium.parent().unwrap().to_str().unwrap().to_string();
    let o = child(true, &path, &empty);
    let text = common::text(&o);
    assert!(!o.status.success(), "{text}");
    let want = format!(
        "precondition missing under CI=true: mysql-5.7.22 is not in {}; provide it with: bash scripts/setup.sh (or psbench fetch mysql 5.7.22)",
        empty.display()
    );
    assert!(text.contains(&want), "{text}");
    let o = child(false, &path, &empty);
    assert!(o.status.success(), "{}", common::text(&o));
    assert!(common::text(&o).contains("SKIPPED: mysql-5.7.22 is not in"));
}
