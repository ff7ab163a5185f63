//! The PostgreSQL built-in studies, cut down to seconds: every part runs end to end on the
//! real servers (Debian's PostgreSQL 15, and 17.2 from Maven Central when setup fetched it).

use crate::common;

use common::require::cached_release;
use common::run_study;

/// A built-in study with some of its variants, small data and small cost windows.
fn tiny(builtin: &str, keep_variants: &[&str]) -> String {
    common::tiny_study(
        builtin,
        keep_variants,
        "table_size = 1000\npgbench_scale = 1",
        Some("events = [100, 200, 300]\nwarmup_events = 50"),
    )
}

fn ir(r: &serde_json::Value, variant: &str, step: &str) -> f64 {
    let c = r["cost"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["variant"] == variant && c["step"] == step)
        .unwrap_or_else(|| panic!("no cost of {variant} {step}"));
    assert_eq!(c["ok"], true, "{c}");
    c["ir_per_txn"].as_f64().unwrap()
}

#[test]
fn pg_stat_overhead_tiny_end_to_end() {
    let study = tiny(
        "pg-stat-overhead",
        &["off", "pgss_top", "all_on", "auto_explain"],
    );
    let (r, md) = run_study(&study);
    assert_eq!(
        r["cost"].as_array().unwrap().len(),
        8,
        "4 variants x 2 cost steps"
    );
    for step in ["pgbench_select_only", "read_only"] {
        let off = ir(&r, "off", step);
        for v in ["pgss_top", "all_on", "auto_explain"] {
            assert!(
                ir(&r, v, step) > off,
                "{v} costs no more than off on {step}"
            );
        }
    }
    // Logging every plan costs more than counting statements.
    let sel = "pgbench_select_only";
    assert!(ir(&r, "auto_explain", sel) > ir(&r, "pgss_top", sel));
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 9, "3 throughput variants x 3 steps x 1 thread");
    assert!(cells.iter().all(|c| c["ok"] == true), "{cells:#?}");
    assert!(
        md.contains("### Findings") && md.contains("pgss_top / off"),
        "{md}"
    );
}

#[test]
fn pg_versions_tiny_end_to_end() {
    if cached_release("postgres-17.2.0").is_none() {
        return;
    }
    let (r, md) = run_study(&tiny("pg-versions", &["pg15", "pg17"]));
    let version = |v: &str| {
        r["variants"][v]["server_version"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(version("pg15").starts_with("15."), "{}", version("pg15"));
    assert_eq!(version("pg17"), "17.2");
    for step in ["pgbench_tpcb_like", "pgbench_select_only", "read_write"] {
        assert!(ir(&r, "pg15", step) > 0.0 && ir(&r, "pg17", step) > 0.0);
    }
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6, "2 variants x 3 steps x 1 thread");
    assert!(cells.iter().all(|c| c["ok"] == true), "{cells:#?}");
    // Two builds: the report says instruction counts differ by layout as well as logic.
    assert!(md.contains("code layout"), "{md}");
}
