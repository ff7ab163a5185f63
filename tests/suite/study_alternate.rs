//! Alternating studies end to end: both servers up at once, the load alternating between them
//! in slices, each slice kept; and the study-file mistakes an alternating schedule refuses.

use crate::common;

use common::{psbench, run_study, text};

const ALTERNATE: &str = r#"
name = "alternate"
schedule = "alternate"
slice = 0.5
threads = [2]
rounds = 1
duration = 1
warmup = 0.3
[dataset]
table_size = 1000
[[variant]]
name = "ps_off"
scenario = "ps_off"
[[variant]]
name = "default"
scenario = "default"
[[workload]]
workload = "oltp_point_select"
"#;

#[test]
fn slices_alternate_between_live_servers_and_are_kept() {
    let (res, md) = run_study(ALTERNATE);
    let cells = res["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "{cells:?}");
    // Every slice of the cell, over both variants: (position, variant, at_s).
    let mut order = Vec::new();
    for c in cells {
        assert!(c["ok"].as_bool().unwrap(), "{c}");
        let slices = c["slices"].as_array().unwrap();
        assert_eq!(slices.len(), 2, "1 s in slices of 0.5 s: {c}");
        let txns: u64 = slices
            .iter()
            .map(|s| s["transactions"].as_u64().unwrap())
            .sum();
        assert_eq!(txns, c["transactions"].as_u64().unwrap());
        for s in slices {
            let d = s["duration_s"].as_f64().unwrap();
            assert!((0.4..1.0).contains(&d), "a slice lasts about 0.5 s: {s}");
            assert!(s["tps"].as_f64().unwrap() > 0.0, "{s}");
            order.push((
                s["position"].as_u64().unwrap(),
                c["variant"].as_str().unwrap().to_string(),
                s["at_s"].as_f64().unwrap(),
            ));
        }
        // The other variant's server was up (and measured) while this one ran.
        assert!(
            c["resources"]["idle_servers_cpu_util"].as_f64().is_some(),
            "{c}"
        );
    }
    order.sort_by_key(|o| o.0);
    let variants: Vec<&str> = order.iter().map(|o| o.1.as_str()).collect();
    assert_eq!(
        variants,
        ["ps_off", "default", "default", "ps_off"],
        "A B B A"
    );
    // One after another in time, never two at once.
    for w in order.windows(2) {
        assert!(w[1].2 >= w[0].2 + 0.4, "slices overlap: {order:?}");
    }
    assert!(md.contains("ps_off"), "{md}");
}

fn refused(study: &str) -> String {
    let tmp = common::tempdir().unwrap();
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, study).unwrap();
    let o = psbench(&tmp.path().join("home"))
        .args(["run", file.to_str().unwrap(), "--out"])
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert_eq!(t.trim().lines().count(), 1, "one line: {t}");
    t
}

#[test]
fn an_alternating_schedule_refuses_what_it_cannot_slice() {
    let t = refused(&ALTERNATE.replace("schedule = \"alternate\"", ""));
    assert!(
        t.contains("slice applies to schedule = \"alternate\""),
        "{t}"
    );
    let t = refused(&ALTERNATE.replace("slice = 0.5", "slice = 2"));
    assert!(t.contains("at most duration"), "{t}");
    let t = refused(&format!(
        "{ALTERNATE}[[workload]]\nworkload = \"insert-benchmark\"\nsteps = [\"l.i0\"]\n"
    ));
    assert!(t.contains("Insert Benchmark"), "{t}");
}
