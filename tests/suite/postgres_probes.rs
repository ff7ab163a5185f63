//! The server CPU of a PostgreSQL sandbox is its whole process tree: the backend that did
//! the work is counted while it lives and after it ended, and the postmaster alone would
//! miss it.

use crate::common;

use psbench::probes::{process_tree, ProcSample};
use psbench::server::{Home, SandboxSpec};

#[test]
fn a_backends_cpu_counts_while_it_lives_and_after_it_ends() {
    let home = common::tempdir().unwrap();
    let mut spec = SandboxSpec::new("probe", Home::new(home.path()));
    spec.family = Some(psbench::results::Family::Postgres);
    let sb = psbench::engines::start(spec).unwrap();
    let postmaster = sb.pid().unwrap();

    let mut c = sb.state().pg_tcp_endpoint().connect().unwrap();
    let backend = c.backend_pid();
    assert_ne!(backend, postmaster);
    assert!(process_tree::descendants(postmaster).contains(&backend));

    let tree_before = process_tree::sample(postmaster).unwrap();
    let alone_before = ProcSample::of(postmaster).unwrap();
    let backend_before = ProcSample::of(backend).unwrap();
    // Work only the backend does: about a second of CPU.
    c.run("SELECT count(*) FROM generate_series(1, 8000000)")
        .unwrap();
    let used = ProcSample::of(backend)
        .unwrap()
        .since(&backend_before)
        .cpu_us;
    assert!(
        used >= 100_000,
        "the query used {used} µs of the backend's CPU"
    );
    let tree = process_tree::sample(postmaster)
        .unwrap()
        .since(&tree_before)
        .cpu_us;
    let alone = ProcSample::of(postmaster)
        .unwrap()
        .since(&alone_before)
        .cpu_us;
    assert!(tree >= used, "tree {tree} µs < the backend's {used} µs");
    assert!(
        alone < used / 2,
        "the postmaster alone used {alone} µs of {used}"
    );

    // The backend ends; its CPU stays in the tree (the postmaster's children's times).
    let tree_live = process_tree::sample(postmaster).unwrap();
    drop(c);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while common::alive(backend) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!common::alive(backend), "the backend did not end");
    // Reaped once the postmaster notices: give it a moment, then the total must not drop.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let tree_after = process_tree::sample(postmaster).unwrap();
    assert!(
        tree_after.cpu_us + 20_000 >= tree_live.cpu_us,
        "the ended backend's CPU left the tree: {} µs then {} µs",
        tree_live.cpu_us,
        tree_after.cpu_us
    );
}
