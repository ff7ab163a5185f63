//! MySQL 5.7.22 and 8.0.15 (fetched by the setup step from Maven Central): psbench's own
//! defaults start both, a user's unknown option still fails naming it, every scenario is
//! verified exactly against each server's own defaults, and tiny versions of the built-in
//! studies `mysql-pfs` and `mysql-versions` run end to end in both modes.

use crate::common;

use common::require::cached_release;
use common::run_study;
use psbench::engines::mysql::scenarios::{scenario, PfsFlavour, NAMES};
use psbench::server::{Home, Sandbox, SandboxSpec, ServerOption};
use std::path::Path;

const RELEASES: [(&str, PfsFlavour); 2] = [
    ("mysql-5.7.22", PfsFlavour::MySql57),
    ("mysql-8.0.15", PfsFlavour::MySql80),
];

fn start(home: &Home, name: &str, basedir: &Path, options: Vec<ServerOption>) -> Sandbox {
    let mut spec = SandboxSpec::new(name, home.clone());
    spec.basedir = Some(basedir.to_path_buf());
    spec.options = options;
    psbench::engines::start(spec).unwrap_or_else(|e| panic!("{name}: {e:#}"))
}

#[test]
fn every_scenario_takes_effect_on_mysql_5_7_and_8_0() {
    for (release, on) in RELEASES {
        let Some(basedir) = cached_release(release) else {
            continue;
        };
        let tmp = common::tempdir().unwrap();
        let home = Home::new(tmp.path());
        let mut counts = Vec::new();
        for name in NAMES {
            let sc = scenario(name).unwrap();
            if sc.available_on(on).is_err() {
                continue;
            }
            let sb = start(&home, name, &basedir, sc.options());
            let mut c = sb.admin_endpoint().connect().unwrap();
            let state = sc
                .verify(&mut c, on)
                .unwrap_or_else(|e| panic!("{release} {name}: {e:#}"));
            counts.push((*name, state.instruments_enabled, state.consumers_on.clone()));
        }
        let get = |n: &str| counts.iter().find(|c| c.0 == n).unwrap().clone();
        // MySQL's own defaults, not MariaDB's: more consumers on, and PS on by default.
        let default = get("default");
        let mut want: Vec<&str> = on.default_consumers().to_vec();
        want.sort();
        assert_eq!(default.2, want, "{release}");
        assert!(default.1 > 200, "{release}: {counts:?}");
        assert_eq!(get("all_enabled").2.len(), 15, "{release}");
        assert!(get("all_disabled").2.is_empty(), "{release}");
        assert!(
            get("all_enabled").1 > default.1 + 100,
            "{release}: {counts:?}"
        );
        assert_eq!(get("ps_off").1, 0, "{release}");
        // mdl_only is one more than all_disabled's floor of performance_schema's own memory.
        assert_eq!(get("mdl_only").1, get("all_disabled").1 + 1, "{release}");
        assert_eq!(get("consumers_off").1, default.1, "{release}");
    }
}

#[test]
fn defaults_start_everywhere_and_a_mistyped_option_still_fails() {
    for (release, on) in RELEASES {
        let Some(basedir) = cached_release(release) else {
            continue;
        };
        let tmp = common::tempdir().unwrap();
        let home = Home::new(tmp.path());
        let sb = start(&home, "d", &basedir, Vec::new());
        assert!(sb
            .binaries()
            .version
            .starts_with(&release["mysql-".len()..]));
        // The X plugin is off where it exists (8.0) and ignored where it does not (5.7).
        let mut c = sb.admin_endpoint().connect().unwrap();
        use mysql::prelude::Queryable;
        let x: Option<String> = c
            .query_first(
                "SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME='mysqlx'",
            )
            .unwrap();
        assert_ne!(x.as_deref(), Some("ACTIVE"), "{release}");
        if on == PfsFlavour::MySql80 {
            assert!(x.is_some(), "8.0 has the X plugin, disabled");
        }
        drop(sb);
        let mut spec = SandboxSpec::new("typo", home.clone());
        spec.basedir = Some(basedir.clone());
        spec.options = vec![ServerOption::parse("innodb_bufer_pool_size=1G").unwrap()];
        let Err(e) = psbench::engines::start(spec) else {
            panic!("{release} started with a mistyped option");
        };
        let e = format!("{e:#}");
        assert!(e.contains("innodb_bufer_pool_size"), "{release}: {e}");
    }
}

/// A built-in study cut down to seconds: some of its variants, all its workloads, small.
fn tiny(builtin: &str, keep_variants: &[&str]) -> String {
    common::tiny_study(builtin, keep_variants, "table_size = 1000", None)
}

#[test]
fn mysql_pfs_tiny_end_to_end() {
    if cached_release("mysql-5.7.22").is_none() {
        return;
    }
    let study = tiny(
        "mysql-pfs",
        &["ps_off", "default", "all_enabled", "waits_only"],
    );
    let (r, out) = run_study(&study);
    assert!(r["variants"]["default"]["server_version"]
        .as_str()
        .unwrap()
        .starts_with("5.7.22"));
    let cost = r["cost"].as_array().unwrap();
    assert_eq!(cost.len(), 4, "{cost:#?}");
    let ir = |v: &str| {
        cost.iter().find(|c| c["variant"] == v).unwrap()["ir_per_txn"]
            .as_f64()
            .unwrap()
    };
    // Everything on runs instrumentation in every statement: it costs more than PS off.
    assert!(ir("all_enabled") > ir("ps_off") * 1.05, "{cost:#?}");
    let cells = r["cells"].as_array().unwrap();
    assert!(cells.iter().all(|c| c["ok"] == true), "{out}");
    assert!(!cells.iter().any(|c| c["variant"] == "waits_only"));
    assert!(out.contains("Findings"), "{out}");
}

#[test]
fn mysql_versions_tiny_end_to_end() {
    if cached_release("mysql-5.7.22").is_none() || cached_release("mysql-8.0.15").is_none() {
        return;
    }
    // Profiled too: perf samples of the first round's one-thread cells.
    let study = tiny(
        "mysql-versions",
        &["5.7_ps_off", "8.0_ps_off", "8.0_default"],
    ) + "\n[profile]\nthreads = [1]\n";
    let (r, out) = run_study(&study);
    let v = &r["variants"];
    assert!(v["8.0_default"]["server_version"]
        .as_str()
        .unwrap()
        .starts_with("8.0.15"));
    assert_eq!(v["8.0_default"]["pfs"]["enabled"], true);
    let cells = r["cells"].as_array().unwrap();
    for step in [
        "point_select",
        "read_only",
        "read_write",
        "l.i0",
        "l.x",
        "qp1000",
    ] {
        for variant in ["5.7_ps_off", "8.0_default"] {
            let c = cells
                .iter()
                .find(|c| c["variant"] == variant && c["step"] == step)
                .unwrap_or_else(|| panic!("no {variant} {step}: {out}"));
            assert_eq!(c["ok"], true, "{c}");
        }
    }
    assert!(
        r["notes"].to_string().contains("code layout"),
        "{}",
        r["notes"]
    );
    // MySQL's binaries are stripped, as Debian's mariadbd is: the profiles say so.
    let profiled = cells
        .iter()
        .filter(|c| c["variant"] == "8.0_default" && c["profile"].is_object())
        .count();
    assert!(profiled >= 3, "{out}");
    assert!(
        r["notes"].to_string().contains("have no symbol"),
        "{}",
        r["notes"]
    );
    assert!(out.contains("Findings"), "{out}");
}
