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

/// Checks the JSON document on stdin against the schema named by argv[1], after checking
/// the schema itself: one `path: message` line per error.
const VALIDATE: &str = r#"
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
for e in cls(schema).iter_errors(json.load(sys.stdin)):
    print("/".join(str(p) for p in e.absolute_path) + ": " + e.message)
"#;

/// The schema's errors in `doc`, as Python's jsonschema reports them.
fn schema_errors(doc: &Value) -> Vec<String> {
    use std::io::Write;
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bmf/bmf.schema.json");
    let mut child = std::process::Command::new("python3")
        .args(["-c", VALIDATE])
        .arg(schema)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(doc.to_string().as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", common::text(&o));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_export_is_bencher_metric_format_with_every_cell_and_count() {
    if !common::require::python3_jsonschema() {
        return;
    }
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
    let errors = schema_errors(&bmf);
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema is not vacuous: a measure without a value breaks it.
    let broken = schema_errors(&serde_json::json!({"b": {"m": {"lower_value": 1.0}}}));
    assert!(
        broken
            .iter()
            .any(|e| e.contains("'value' is a required property")),
        "{broken:#?}"
    );

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
