//! PostgreSQL sandboxes against the real servers: Debian's PostgreSQL 15 (installed by
//! scripts/setup.sh) and PostgreSQL 17.2 from Maven Central (fetched by setup into the cache).

use crate::common;

use common::{alive, psbench, text};
use psbench::connection::PgEndpoint;
use psbench::server::{Home, SandboxSpec, SandboxState};
use std::path::Path;
use std::process::Command;

fn spec(home: &Path, name: &str, options: &[&str]) -> SandboxSpec {
    let mut s = SandboxSpec::new(name, Home::new(home));
    s.family = Some(psbench::results::Family::Postgres);
    for o in options {
        s = s.option(o).unwrap();
    }
    s
}

/// One value of a one-row query over the superuser's socket connection.
fn one(e: &PgEndpoint, sql: &str) -> String {
    let rows = e.connect().unwrap().query(sql).unwrap();
    rows[0][0].clone().unwrap_or_default()
}

/// The server's process and every process it started (backends, background workers).
fn tree(pid: i32) -> Vec<i32> {
    let mut all = vec![pid];
    let mut i = 0;
    while i < all.len() {
        let p = all[i];
        let children =
            std::fs::read_to_string(format!("/proc/{p}/task/{p}/children")).unwrap_or_default();
        all.extend(
            children
                .split_whitespace()
                .filter_map(|c| c.parse::<i32>().ok()),
        );
        i += 1;
    }
    all
}

#[test]
fn a_sandbox_applies_its_settings_and_only_its_password_gets_in_over_tcp() {
    let home = common::tempdir().unwrap();
    let sb = psbench::engines::start(spec(
        home.path(),
        "p",
        &["shared_buffers=64MB", "track_io_timing", "work_mem=8MB"],
    ))
    .unwrap();
    let st = sb.state().clone();
    assert_eq!(st.binaries.flavour, psbench::results::Flavour::Postgres);
    let admin = st.pg_admin_endpoint();
    assert_eq!(one(&admin, "SHOW shared_buffers"), "64MB");
    assert_eq!(one(&admin, "SHOW track_io_timing"), "on");
    assert_eq!(one(&admin, "SHOW listen_addresses"), "127.0.0.1");
    // Read back from pg_settings in the setting's own unit (8kB pages).
    assert_eq!(sb.variables()["shared_buffers"], "8192");
    assert_eq!(sb.variables()["synchronous_commit"], "off");

    // Over TCP: this start's password, and nothing else.
    let tcp = st.pg_tcp_endpoint();
    assert_eq!(tcp.password.as_deref(), Some(sb.password()));
    assert_eq!(one(&tcp, "SELECT current_user"), "postgres");
    let mut wrong = tcp.clone();
    wrong.password = Some("not-the-password".into());
    let e = wrong.connect().err().expect("a wrong password gets in");
    assert!(psbench::error::is_usage(&e), "{e:#}");
    assert!(e.to_string().contains("access denied"), "{e:#}");
    let mut none = tcp.clone();
    none.password = None;
    assert!(none.connect().is_err(), "no password gets in");

    // libpq (psql) with the sandbox's 0600 password file reaches it over TCP as well.
    let pgpass = st.dir.join("pgpass");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&pgpass).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let out = Command::new("psql")
        .env("PGPASSFILE", &pgpass)
        .args([
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-Atc",
            "SELECT 42",
        ])
        .arg("-p")
        .arg(st.port.to_string())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "42",
        "{}",
        text(&out)
    );

    // Dropping the sandbox stops the server and every process it started.
    let pids = tree(st.process.unwrap().pid);
    assert!(
        pids.len() >= 4,
        "postmaster and its background processes: {pids:?}"
    );
    drop(sb);
    for p in pids {
        assert!(!alive(p), "process {p} outlived its sandbox");
    }
}

#[test]
fn settings_that_do_not_apply_stop_the_sandbox_and_are_named() {
    let home = common::tempdir().unwrap();
    // Kept only as a placeholder: its library is not loaded.
    let e = psbench::engines::start(spec(home.path(), "a", &["pg_stat_statements.track=all"]))
        .err()
        .unwrap();
    let msg = format!("{e:#}");
    assert!(
        msg.contains("pg_stat_statements.track=all") && msg.contains("shared_preload_libraries"),
        "{msg}"
    );
    let st = SandboxState::load(&home.path().join("sandboxes/a")).unwrap();
    assert!(
        !st.is_running(),
        "a sandbox whose settings failed keeps running"
    );

    let e = psbench::engines::start(spec(home.path(), "b", &["shared_bufers=1"]))
        .err()
        .unwrap();
    assert!(psbench::error::is_usage(&e), "{e:#}");
    assert!(e.to_string().contains("shared_bufers"), "{e:#}");

    let e = psbench::engines::start(spec(home.path(), "c", &["unix_socket_directories=/tmp"]))
        .err()
        .unwrap();
    assert!(psbench::error::is_usage(&e), "{e:#}");

    // With its library loaded, the same setting applies.
    let sb = psbench::engines::start(spec(
        home.path(),
        "d",
        &[
            "shared_preload_libraries=pg_stat_statements",
            "pg_stat_statements.track=all",
        ],
    ))
    .unwrap();
    assert_eq!(sb.variables()["pg_stat_statements.track"], "all");
}

#[test]
fn sandboxes_start_from_copies_of_one_cluster_per_binary() {
    let home = common::tempdir().unwrap();
    let a = psbench::engines::start(spec(home.path(), "a", &[])).unwrap();
    let b = psbench::engines::start(spec(home.path(), "b", &[])).unwrap();
    let cache: Vec<_> = std::fs::read_dir(home.path().join("initdb"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(cache.len(), 1, "one initdb for one binary: {cache:?}");
    assert_ne!(a.state().datadir, b.state().datadir);
    assert_ne!(a.port(), b.port());
    let mut ca = a.state().pg_admin_endpoint().connect().unwrap();
    ca.run("CREATE TABLE only_in_a (x int)").unwrap();
    let seen = one(
        &b.state().pg_admin_endpoint(),
        "SELECT count(*) FROM pg_class WHERE relname = 'only_in_a'",
    );
    assert_eq!(seen, "0");
}

#[test]
fn cli_starts_lists_and_stops_a_postgres_sandbox_and_leaves_no_process() {
    let home = common::tempdir().unwrap();
    let out = psbench(home.path())
        .args(["sandbox", "start", "--engine", "postgres", "--name", "pg"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("PostgreSQL"), "{}", text(&out));
    let st = SandboxState::load(&home.path().join("sandboxes/pg")).unwrap();
    let pids = tree(st.process.unwrap().pid);
    let list = psbench(home.path())
        .args(["sandbox", "list"])
        .output()
        .unwrap();
    assert!(
        text(&list).contains("running") && text(&list).contains("PostgreSQL"),
        "{}",
        text(&list)
    );
    let stop = psbench(home.path())
        .args(["sandbox", "stop", "pg"])
        .output()
        .unwrap();
    assert!(stop.status.success(), "{}", text(&stop));
    for p in pids {
        assert!(!alive(p), "process {p} outlived `sandbox stop`");
    }
    // Clean shutdown: the log says so (fast shutdown, not a kill).
    let log = std::fs::read_to_string(&st.error_log).unwrap();
    assert!(log.contains("database system is shut down"), "{log}");
}

#[test]
fn mixed_up_engines_and_releases_are_one_line_errors() {
    let home = common::tempdir().unwrap();
    let pg_tree = psbench::engines::postgres::binaries::system_tree().unwrap();
    for args in [
        vec![
            "sandbox",
            "start",
            "--engine",
            "mysql",
            "--basedir",
            pg_tree.to_str().unwrap(),
        ],
        vec!["sandbox", "start", "--engine", "postgres", "-o", "port=5"],
        vec!["fetch", "postgres", "17.2"],
    ] {
        let out = psbench(home.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn postgres_17_from_maven_central_loads_pg_stat_statements_and_auto_explain() {
    let Some(dir) = common::require::cached_release("postgres-17.2.0") else {
        return;
    };
    let home = common::tempdir().unwrap();
    let mut s = spec(
        home.path(),
        "p17",
        &[
            "shared_preload_libraries=pg_stat_statements,auto_explain",
            "pg_stat_statements.track=top",
            "auto_explain.log_min_duration=0",
            "compute_query_id=on",
        ],
    );
    s.basedir = Some(dir);
    let sb = psbench::engines::start(s).unwrap();
    assert_eq!(psbench::engines::label(sb.binaries()), "PostgreSQL 17.2");
    let admin = sb.state().pg_admin_endpoint();
    assert_eq!(admin.server_version().unwrap(), "17.2");
    // Built by its packager with -Os, as the server itself says: what flag set `os` copies.
    let flags = psbench::engines::of_family(psbench::results::Family::Postgres)
        .compiled_with(&sb)
        .unwrap()
        .unwrap();
    let cflags = flags.iter().find(|f| f.starts_with("CFLAGS=")).unwrap();
    assert!(cflags.split_whitespace().any(|f| f == "-Os"), "{flags:?}");
    let mut c = admin.connect().unwrap();
    c.run("CREATE EXTENSION pg_stat_statements").unwrap();
    c.run("SELECT 1").unwrap();
    let n = one(&admin, "SELECT count(*) > 0 FROM pg_stat_statements");
    assert_eq!(n, "t");
    // The admin session's statements, the password among them, stay out of auto_explain's log.
    drop(c);
    let log = std::fs::read_to_string(sb.error_log()).unwrap();
    assert!(
        !log.contains("SCRAM-SHA-256$"),
        "a verifier reached the log"
    );
    assert!(!log.contains(sb.password()));
}

/// `psql ARGS` run as the unprivileged user `nobody`, with `password` in PGPASSWORD.
fn psql_as_nobody(args: &[String], password: Option<&str>) -> std::process::Output {
    let mut c = Command::new("psql");
    c.args(args)
        .current_dir("/")
        .env("PGPASSFILE", "/nonexistent");
    match password {
        Some(p) => c.env("PGPASSWORD", p),
        None => c.env_remove("PGPASSWORD"),
    };
    common::as_nobody(&mut c).output().unwrap()
}

#[test]
fn other_local_users_get_nothing_over_tcp_or_the_socket() {
    if !common::require::root("acting as another user") {
        return;
    }
    let home = common::tempdir().unwrap();
    let sb = psbench::engines::start(spec(home.path(), "sec", &[])).unwrap();
    let port = sb.port().to_string();
    for user in ["postgres", "mysql", "nobody"] {
        for password in [None, Some("wrong"), Some("")] {
            let args: Vec<String> = ["-h", "127.0.0.1", "-p", &port, "-U", user, "-d", "postgres"]
                .iter()
                .map(|s| s.to_string())
                .chain(["-w".into(), "-Atc".into(), "SELECT 1".into()])
                .collect();
            let o = psql_as_nobody(&args, password);
            assert!(
                !o.status.success(),
                "nobody got in as '{user}' over TCP ({password:?}): {}",
                text(&o)
            );
        }
    }
    let socket_dir = sb.socket().display().to_string();
    let args: Vec<String> = [
        "-h",
        &socket_dir,
        "-p",
        &port,
        "-U",
        "postgres",
        "-w",
        "-Atc",
        "SELECT 1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let o = psql_as_nobody(&args, None);
    assert!(
        !o.status.success(),
        "nobody reached the socket: {}",
        text(&o)
    );
    assert!(text(&o).contains("Permission denied"), "{}", text(&o));
    // The server runs as psbench's own unprivileged account (as MariaDB's does), not as root
    // and not as another engine's account.
    let status = std::fs::read_to_string(format!("/proc/{}/status", sb.pid().unwrap())).unwrap();
    let uid = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
    let own = nix::unistd::User::from_name(psbench::server::account::SERVER_USER)
        .unwrap()
        .expect("setup creates the server account");
    assert!(
        uid.split_whitespace()
            .skip(1)
            .all(|u| u == own.uid.to_string()),
        "{uid}"
    );
}
