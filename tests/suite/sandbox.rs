//! Sandboxes against the real system mariadbd (installed by scripts/setup.sh).

use crate::common;

use common::{alive, psbench};
use psbench::server::{Home, SandboxSpec};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn sql(socket: &Path, query: &str) -> String {
    let out = Command::new("mariadb")
        .args(["--no-defaults", "-uroot", "-N", "-B", "-S"])
        .arg(socket)
        .arg("-e")
        .arg(query)
        .output()
        .expect("running the mariadb client");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn cli_start_with_pfs_then_stop_leaves_no_process() {
    let home = common::tempdir().unwrap();
    let out = psbench(home.path())
        .args([
            "sandbox",
            "start",
            "--name",
            "a",
            "--option",
            "performance_schema=ON",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("socket"), "{text}");
    let state = psbench::server::SandboxState::load(&home.path().join("sandboxes/a")).unwrap();
    let pid = state.process.unwrap().pid;
    assert_eq!(sql(&state.socket, "select @@performance_schema"), "1");
    assert_eq!(sql(&state.socket, "select @@bind_address"), "127.0.0.1");
    assert_eq!(sql(&state.socket, "select @@port"), state.port.to_string());

    let list = psbench(home.path())
        .args(["sandbox", "list"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&list.stdout).contains("running"));

    let stop = psbench(home.path())
        .args(["sandbox", "stop", "a"])
        .output()
        .unwrap();
    assert!(stop.status.success());
    assert!(!alive(pid), "server pid {pid} still alive after stop");
    assert!(!state.socket.exists());
}

#[test]
fn rejected_option_fails_fast_naming_it() {
    let home = common::tempdir().unwrap();
    let t = Instant::now();
    let out = psbench(home.path())
        .args([
            "sandbox",
            "start",
            "--name",
            "b",
            "--option",
            "no_such_option=1",
        ])
        .output()
        .unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "took {:?}",
        t.elapsed()
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no_such_option"), "{err}");
    assert!(
        err.contains("[ERROR]") && err.contains("unknown variable"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

#[test]
fn option_that_does_not_take_effect_is_an_error() {
    let home = common::tempdir().unwrap();
    // The server raises a too-small value to its minimum instead of refusing it.
    let spec = SandboxSpec::new("c", Home::new(home.path()))
        .option("table_open_cache=1")
        .unwrap();
    let err = psbench::engines::start(spec).err().expect("must fail");
    let msg = format!("{err:#}");
    assert!(
        msg.contains("did not take effect") && msg.contains("table_open_cache=1"),
        "{msg}"
    );
}

#[test]
fn drop_stops_and_variables_are_read_back() {
    let home = common::tempdir().unwrap();
    let spec = SandboxSpec::new("d", Home::new(home.path()))
        .option("max_connections=77")
        .unwrap();
    let sb = psbench::engines::start(spec).unwrap();
    let pid = sb.pid().unwrap();
    assert_eq!(sb.variables()["max_connections"], "77");
    assert_eq!(sb.variables()["innodb_flush_log_at_trx_commit"], "2");
    assert!(sb.binaries().version.contains("MariaDB"));
    drop(sb);
    assert!(!alive(pid));
}

#[test]
fn taken_port_is_not_an_error() {
    let home = common::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = listener.local_addr().unwrap().port();
    let mut spec = SandboxSpec::new("e", Home::new(home.path()));
    spec.port_hint = Some(taken);
    let sb = psbench::engines::start(spec).unwrap();
    assert_ne!(sb.port(), taken);
    let mut c = sb.tcp_endpoint().connect().unwrap();
    use mysql::prelude::Queryable;
    let port: u16 = c.query_first("select @@port").unwrap().unwrap();
    assert_eq!(port, sb.port());
}

#[test]
fn snapshot_then_start_from_a_copy() {
    let home = common::tempdir().unwrap();
    let h = Home::new(home.path());
    let mut sb = psbench::engines::start(SandboxSpec::new("f", h.clone())).unwrap();
    sql(
        sb.socket(),
        "create database s; create table s.t (i int primary key) engine=innodb; insert into s.t values (1),(2),(3)",
    );
    let snap = h.snapshot_dir("three-rows");
    sb.snapshot(&snap).unwrap();
    assert!(!sb.is_running());

    let mut spec = SandboxSpec::new("g", h.clone());
    spec.datadir_from = Some(snap.clone());
    let copy = psbench::engines::start(spec).unwrap();
    assert_eq!(sql(copy.socket(), "select count(*) from s.t"), "3");
    // Writes to the copy do not reach the snapshot.
    sql(copy.socket(), "insert into s.t values (4)");
    drop(copy);
    let mut spec = SandboxSpec::new("h", h);
    spec.datadir_from = Some(snap);
    let again = psbench::engines::start(spec).unwrap();
    assert_eq!(sql(again.socket(), "select count(*) from s.t"), "3");
}

/// Not a test by itself: the child process of `sigint_stops_every_server`.
#[test]
#[ignore = "not a test by itself: the process sigint_stops_every_server starts and interrupts"]
fn hold_two_sandboxes() {
    let dir = std::env::var_os("PSBENCH_HOLD_DIR")
        .expect("PSBENCH_HOLD_DIR: this is the child of sigint_stops_every_server; run that test");
    let home = Home::new(&dir);
    let a = psbench::engines::start(SandboxSpec::new("x", home.clone())).unwrap();
    let b = psbench::engines::start(SandboxSpec::new("y", home)).unwrap();
    let pids = format!("{} {}", a.pid().unwrap(), b.pid().unwrap());
    std::fs::write(Path::new(&dir).join("pids.tmp"), pids).unwrap();
    std::fs::rename(
        Path::new(&dir).join("pids.tmp"),
        Path::new(&dir).join("pids"),
    )
    .unwrap();
    std::thread::sleep(Duration::from_secs(120));
}

#[test]
fn sigint_stops_every_server() {
    let home = common::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &common::test_name(module_path!(), "hold_two_sandboxes"),
            "--ignored",
            "--nocapture",
        ])
        .env("PSBENCH_HOLD_DIR", home.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pids_file = home.path().join("pids");
    let t = Instant::now();
    while !pids_file.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "holder never started its sandboxes"
        );
        assert!(child.try_wait().unwrap().is_none(), "holder exited early");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pids: Vec<i32> = std::fs::read_to_string(&pids_file)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|p| alive(*p)));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let t = Instant::now();
    let status = child.wait().unwrap();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!(status.code(), Some(130), "exit code after SIGINT");
    for p in pids {
        assert!(!alive(p), "server {p} survived SIGINT of its owner");
    }
}
