//! Every performance_schema scenario started on a real server takes effect, and a server
//! that runs something else is caught.

use crate::common;

use psbench::engines::mysql::scenarios::{scenario, PfsFlavour, NAMES};
use psbench::server::{Home, SandboxSpec};

#[test]
fn every_scenario_takes_effect_at_startup() {
    let home = common::tempdir().unwrap();
    let mut counts = Vec::new();
    for name in NAMES {
        let sc = scenario(name).unwrap();
        let mut spec = SandboxSpec::new(name, Home::new(home.path()));
        spec.options = sc.options();
        let sb = psbench::engines::start(spec).unwrap();
        let mut c = sb.admin_endpoint().connect().unwrap();
        let state = sc
            .verify(&mut c, PfsFlavour::MariaDb)
            .unwrap_or_else(|e| panic!("{name}: {e:#}"));
        counts.push((name, state.instruments_enabled, state.consumers_on.len()));
    }
    // The floor of 70 memory/performance_schema instruments (docs/scenarios.md#how-a-scenario-is-verified) and all 15 consumers.
    let get = |n: &str| counts.iter().find(|c| *c.0 == n).unwrap();
    assert_eq!(get("all_disabled").1, 70, "{counts:?}");
    assert_eq!(get("all_disabled").2, 0);
    assert_eq!(get("all_enabled").2, 15);
    assert_eq!(get("ps_off").1, 0);
    assert_eq!(get("mdl_only").1, 71);
    // Consumers off, instruments left as the server enables them.
    assert_eq!(get("consumers_off").1, get("default").1, "{counts:?}");
    assert_eq!(get("consumers_off").2, 0);
}

#[test]
fn a_server_without_the_scenario_fails_verification() {
    let home = common::tempdir().unwrap();
    let mut spec = SandboxSpec::new("w", Home::new(home.path()));
    spec.options = scenario("default").unwrap().options();
    let sb = psbench::engines::start(spec).unwrap();
    let mut c = sb.admin_endpoint().connect().unwrap();
    let err = scenario("waits_only")
        .unwrap()
        .verify(&mut c, PfsFlavour::MariaDb)
        .unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("waits_only") && msg.contains("consumers ON"),
        "{msg}"
    );
    assert!(msg.contains("instruments enabled"), "{msg}");
}

#[test]
fn a_server_with_performance_schema_off_is_not_taken_for_one_built_without_it() {
    use psbench::engines::mysql::compiled_out;
    let bin = psbench::engines::of_family(psbench::results::Family::Mysql)
        .system()
        .unwrap();
    assert!(
        compiled_out::has_pfs(&bin),
        "{} lists no --performance-schema",
        bin.server.display()
    );
    let home = common::tempdir().unwrap();
    let mut spec = SandboxSpec::new("off", Home::new(home.path()));
    spec.options = scenario("ps_off").unwrap().options();
    let sb = psbench::engines::start(spec).unwrap();
    let mut c = sb.admin_endpoint().connect().unwrap();
    // Off, but compiled in: the variable is there (and on MariaDB the engine and plugin too).
    let msg = format!("{:#}", compiled_out::verify(&mut c).unwrap_err());
    assert!(
        msg.contains("not compiled out") && msg.contains("@@performance_schema"),
        "{msg}"
    );
    let state = psbench::probes::pfs::PfsState::read(&mut c).unwrap();
    assert!(!state.enabled && !state.compiled_out, "{state:?}");
}
