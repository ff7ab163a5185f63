//! Sandboxes started before psbench recorded each sandbox's administrator, protocol and stop
//! signal keep working: their state file loads with what is missing taken from the engine, and
//! `psbench sandbox stop` stops a running PostgreSQL one with its fast shutdown, as before.

use crate::common;

use common::{psbench, text};
use psbench::connection::Engine;
use psbench::server::{Home, SandboxSpec};
use std::path::Path;

/// The keys psbench's older state files lack.
const NEW_KEYS: [&str; 3] = ["superuser", "protocol", "stop_signal"];

/// Rewrite `dir`'s sandbox.json as psbench wrote it before those keys existed.
fn as_before(dir: &Path) {
    let f = dir.join("sandbox.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    for k in NEW_KEYS {
        assert!(v.as_object_mut().unwrap().remove(k).is_some(), "{k}");
    }
    std::fs::write(&f, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

#[test]
fn a_state_file_from_before_loads_with_its_engines_answers() {
    // Written by psbench at 4c142ac for a PostgreSQL 15 sandbox (paths rewritten below).
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sandbox-before.json");
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path().join("sandboxes/oldpg");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(fixture).unwrap();
    let text = text.replace("/tmp/oldhome", tmp.path().to_str().unwrap());
    assert!(NEW_KEYS.iter().all(|k| !text.contains(k)));
    std::fs::write(dir.join("sandbox.json"), text).unwrap();
    let st = psbench::engines::sandboxes::load(&dir).unwrap();
    assert_eq!(st.superuser, "postgres");
    assert_eq!(st.protocol, Engine::Postgres);
    assert_eq!(st.stop_signal(), nix::sys::signal::Signal::SIGINT);
    assert_eq!(st.admin_endpoint().user, "postgres");
    let out = psbench(tmp.path())
        .args(["sandbox", "list"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("oldpg") && listed.contains("stopped") && listed.contains("PostgreSQL 15"),
        "{listed}"
    );
}

#[test]
fn a_running_postgres_sandbox_from_before_stops_with_its_fast_shutdown() {
    let tmp = common::tempdir().unwrap();
    let mut spec = SandboxSpec::new("was", Home::new(tmp.path()));
    spec.family = Some(psbench::results::Family::Postgres);
    spec.detached = true;
    let st = psbench::engines::start(spec).unwrap().detach();
    as_before(&st.dir);
    let out = psbench(tmp.path())
        .args(["sandbox", "stop", "was"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("stopped sandbox 'was'"),
        "{}",
        text(&out)
    );
    // SIGTERM would have been a smart shutdown, which waits for every client.
    let log = std::fs::read_to_string(&st.error_log).unwrap();
    assert!(log.contains("fast shutdown request"), "{log}");
    assert!(log.contains("database system is shut down"), "{log}");
}
