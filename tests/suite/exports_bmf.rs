//! `--export-bmf FILE` on `report` (and `run`, `merge`): the Bencher Metric Format, checked
//! against the JSON schema Bencher publishes (tests/data/bmf/bmf.schema.json, its source
//! named inside), one benchmark per variant, step and thread count, each measure inside its
//! own interval.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn fixture_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study")
}

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bmf/bmf.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn the_export_is_bencher_metric_format_with_every_cell_and_count() {
    let tmp = common::tempdir().unwrap();
    let out = tmp.path().join("bmf.json");
    let o = common::psbench(&tmp.path().join("home"))
        .args(["report", "--format", "md"])
        .arg(fixture_dir())
        .arg("--export-bmf")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::text(&o));
    let bmf: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let v = schema();
    let errors: Vec<String> = v.iter_errors(&bmf).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema is not vacuous: a measure without a value breaks it.
    assert!(!v.is_valid(&serde_json::json!({"b": {"m": {"lower_value": 1.0}}})));

    let benchmarks = bmf.as_object().unwrap();
    // Two variants × (point_select, read_only) × (1, 2 threads), and each variant's two cost
    // steps.
    for variant in ["ps_off", "default"] {
        for step in ["point_select", "read_only"] {
            for threads in ["1 thread", "2 threads"] {
                let b = &benchmarks[&format!("{variant}/{step}/{threads}")];
                assert!(b["throughput"]["value"].as_f64().unwrap() > 0.0, "{b}");
                assert!(b["server-cpu-per-transaction"]["value"].is_f64(), "{b}");
            }
            let cost = &benchmarks[&format!("{variant}/{step}/cost mode")];
            assert!(
                cost["instructions-per-transaction"]["value"]
                    .as_f64()
                    .unwrap()
                    > 1000.0
            );
        }
    }
    assert_eq!(benchmarks.len(), 12);
    for (name, measures) in benchmarks {
        for (m, x) in measures.as_object().unwrap() {
            let (lo, v, hi) = (
                x["lower_value"].as_f64().unwrap(),
                x["value"].as_f64().unwrap(),
                x["upper_value"].as_f64().unwrap(),
            );
            assert!(lo <= v && v <= hi, "{name} {m}: {lo} {v} {hi}");
        }
    }
}

#[test]
fn an_unwritable_bmf_path_is_refused_before_anything_is_written() {
    let tmp = common::tempdir().unwrap();
    let o = common::psbench(&tmp.path().join("home"))
        .args(["report", "--format", "md"])
        .arg(fixture_dir())
        .args(["--export-bmf", "/nonexistent/dir/bmf.json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o));
    assert!(common::text(&o).contains("--export-bmf: cannot write /nonexistent/dir/bmf.json"));
}
