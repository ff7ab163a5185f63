//! Probes against a real sandbox.

use crate::common;

use psbench::probes::{AdminConn, PfsState, ProcSample, StatusSnapshot};
use psbench::server::{Home, SandboxSpec};

#[test]
fn pfs_state_and_status_deltas_of_a_real_server() {
    let home = common::tempdir().unwrap();
    let spec = SandboxSpec::new("p", Home::new(home.path()))
        .option("performance_schema=ON")
        .unwrap();
    let sb = psbench::engines::start(spec).unwrap();
    let mut c = sb.admin_endpoint().connect().unwrap();
    let pfs = PfsState::read(&mut c).unwrap();
    // MariaDB 10.11 defaults (docs/scenarios.md#how-a-scenario-is-verified).
    assert!(pfs.enabled);
    assert!(pfs.instruments >= 900, "{pfs:?}");
    assert!(pfs.instruments_enabled > 300 && pfs.instruments_enabled < pfs.instruments);
    assert_eq!(
        pfs.consumers_on,
        [
            "global_instrumentation",
            "statements_digest",
            "thread_instrumentation"
        ]
    );
    assert!(pfs.memory_bytes > 50 << 20, "{pfs:?}");

    let mut status = AdminConn::MySql(sb.admin_endpoint().connect().unwrap());
    let before = StatusSnapshot::read(&mut status).unwrap();
    let cpu_before = ProcSample::of(sb.pid().unwrap()).unwrap();
    use mysql::prelude::Queryable;
    for _ in 0..50 {
        c.query_drop("SELECT 1").unwrap();
    }
    let d = StatusSnapshot::read(&mut status).unwrap().delta(&before);
    // 50 selects plus the SHOW GLOBAL STATUS itself.
    assert_eq!(d["Com_select"], 50.0);
    let server = ProcSample::of(sb.pid().unwrap())
        .unwrap()
        .since(&cpu_before);
    assert!(server.rss_bytes > 100 << 20, "PFS on: RSS {server:?}");
}

#[test]
fn pfs_off_reads_as_disabled() {
    let home = common::tempdir().unwrap();
    let sb = psbench::engines::start(SandboxSpec::new("q", Home::new(home.path()))).unwrap();
    let mut c = sb.admin_endpoint().connect().unwrap();
    assert_eq!(PfsState::read(&mut c).unwrap(), PfsState::default());
}
