//! Profiles of real sandboxes: perf samples of the measured windows, folded, drawn, and
//! compared per transaction. The PFS test runs on MariaDB 11.4.5 (fetched from Maven Central,
//! cached), whose mariadbd has symbols; Debian's is stripped.

use crate::common;

use common::{psbench, results, text};
use psbench::profile::{fold, per_txn};
use std::path::{Path, PathBuf};

fn notes(r: &serde_json::Value) -> Vec<String> {
    r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

/// Run a study file through the CLI; returns the results directory and the output.
fn run_study(
    tmp: &Path,
    body: &str,
    extra: &[&str],
    path_prefix: Option<&Path>,
) -> (PathBuf, String) {
    let study = tmp.join("study.toml");
    std::fs::write(&study, body).unwrap();
    let out = tmp.join("out");
    let mut c = psbench(&tmp.join("home"));
    c.arg("run").arg(&study).arg("--out").arg(&out).args(extra);
    if let Some(dir) = path_prefix {
        let path = std::env::var("PATH").unwrap_or_default();
        c.env("PATH", format!("{}:{path}", dir.display()));
    }
    let o = c.output().unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    (out, t)
}

const DEBIAN: &str = r#"
name = "profile-debian"
threads = [1]
rounds = 2
duration = 2
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
fn debian_server_profiles_fold_mariadbd_frames_and_name_missing_symbols() {
    let tmp = common::tempdir().unwrap();
    let (out, t) = run_study(tmp.path(), DEBIAN, &["--profile"], None);
    let r = results(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4, "{t}");
    let mut worst_unresolved: f64 = 0.0;
    for c in cells {
        let p = &c["profile"];
        if c["round"] != 0 {
            assert!(
                p.is_null(),
                "only the first round is profiled by default: {c}"
            );
            continue;
        }
        assert_eq!(p["transactions"], c["transactions"], "{p}");
        assert!(p["samples"].as_u64().unwrap() > 50, "{p}");
        let folded = std::fs::read_to_string(out.join(p["folded"].as_str().unwrap())).unwrap();
        let stacks = fold::parse(&folded).unwrap();
        // The statement path resolves even on the stripped binary (exported symbols).
        let through = |f: &str| {
            stacks
                .iter()
                .filter(|(s, _)| s.starts_with("mariadbd;") && s.split(';').any(|x| x == f))
                .count()
        };
        assert!(
            through("do_command") > 0 && through("dispatch_command") > 0,
            "{folded}"
        );
        worst_unresolved = worst_unresolved.max(p["unresolved_share"].as_f64().unwrap());
        let stem = p["folded"].as_str().unwrap().trim_end_matches(".folded");
        let svg = std::fs::read_to_string(out.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.contains("<svg") && svg.contains("do_command"), "{stem}");
    }
    let diff = out.join("profiles/default-point_select-1t-r0.vs-ps_off.diff.svg");
    assert!(std::fs::read_to_string(diff).unwrap().contains("<svg"));
    let summary = std::fs::read_to_string(out.join("profiles/summary.md")).unwrap();
    assert!(
        summary.contains("### default against ps_off: point_select, 1 thread")
            && summary.contains("| frame | self ps_off | self default |"),
        "{summary}"
    );
    let res = psbench::results::StudyResults::load(&out).unwrap();
    let section = psbench::report::findings::frames_that_grew::section(&res);
    assert_eq!(section.as_deref(), Some(summary.as_str()));
    assert!(
        res.frames_that_grew
            .iter()
            .flatten()
            .any(|g| g.variant == "default" && !g.frames.is_empty()),
        "{:?}",
        res.frames_that_grew
    );
    // The study's summary carries the table, one heading level down.
    let study_md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        study_md.contains("\n### Frames that grew per transaction\n")
            && study_md.contains("\n#### default against ps_off: point_select, 1 thread\n"),
        "{study_md}"
    );
    // Frames perf cannot name are said to be missing, with how to get them.
    let n = notes(&r);
    let symbol_notes: Vec<&String> = n.iter().filter(|n| n.contains("have no symbol")).collect();
    if worst_unresolved >= psbench::profile::symbols::NOTE_SHARE {
        assert!(
            !symbol_notes.is_empty() && symbol_notes[0].contains("dbgsym"),
            "{n:?}"
        );
    } else {
        assert!(symbol_notes.is_empty(), "{n:?}");
    }
}

#[test]
fn perf_not_permitted_is_said_once_and_the_study_goes_on() {
    let tmp = common::tempdir().unwrap();
    // A perf that fails as it does under a strict kernel.perf_event_paranoid.
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("perf");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'Error: Access to performance monitoring and observability operations is limited.' >&2\n\
         echo 'Consider adjusting /proc/sys/kernel/perf_event_paranoid setting' >&2\nexit 255\n",
    )
    .unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(
        &mut std::fs::metadata(&fake).unwrap().permissions(),
        0o755,
    );
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let body = DEBIAN
        .replace("rounds = 2", "rounds = 1")
        .replace("duration = 2", "duration = 1")
        .replace("[dataset]", "profile = true\n[dataset]");
    let (out, t) = run_study(tmp.path(), &body, &[], Some(&bin));
    let r = results(&out);
    let said: Vec<String> = notes(&r)
        .into_iter()
        .filter(|n| n.contains("profiles were asked for but not taken"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", notes(&r));
    assert!(said[0].contains("perf_event_paranoid"), "{said:?}");
    assert_eq!(
        t.matches("psbench: profiles were asked for").count(),
        1,
        "{t}"
    );
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    assert!(cells
        .iter()
        .all(|c| c["ok"] == true && c["profile"].is_null()));
    assert!(!out.join("profiles").exists());
}

/// A frame of performance_schema itself (storage/perfschema): its PSI entry points
/// `pfs_*_v1`, its classes and its event aggregation.
fn is_pfs_frame(f: &str) -> bool {
    f.starts_with("pfs_")
        || f.contains("PFS_")
        || f.starts_with("insert_events_")
        || f.starts_with("aggregate_")
}

#[test]
fn differential_of_all_enabled_against_ps_off_grows_in_performance_schema() {
    if common::require::cached_release("mariadb-11.4.5").is_none() {
        return;
    }
    let tmp = common::tempdir().unwrap();
    let body = r#"
name = "profile-pfs"
threads = [1]
rounds = 1
duration = 4
warmup = 0.5
[profile]
threads = [1]
[dataset]
table_size = 1000
[[variant]]
name = "ps_off"
scenario = "ps_off"
version = "mariadb-11.4.5"
[[variant]]
name = "all_enabled"
scenario = "all_enabled"
version = "mariadb-11.4.5"
[[workload]]
workload = "oltp_point_select"
"#;
    let (out, _) = run_study(tmp.path(), body, &[], None);
    let r = results(&out);
    // 11.4.5's mariadbd has its symbols: no note about missing ones.
    assert!(
        !notes(&r).iter().any(|n| n.contains("have no symbol")),
        "{:?}",
        notes(&r)
    );
    // The differential's input: `stack ps_off_ns all_enabled_ns` per transaction.
    let diff = std::fs::read_to_string(
        out.join("profiles/all_enabled-point_select-1t-r0.vs-ps_off.diff.folded"),
    )
    .unwrap();
    let (mut base, mut variant) = (0u64, 0u64);
    for line in diff.lines() {
        let mut parts = line.rsplitn(3, ' ');
        let v: u64 = parts.next().unwrap().parse().unwrap();
        let b: u64 = parts.next().unwrap().parse().unwrap();
        let leaf = parts.next().unwrap().rsplit(';').next().unwrap();
        if is_pfs_frame(leaf) {
            base += b;
            variant += v;
        }
    }
    // all_enabled runs performance_schema code on every statement, stage and wait; ps_off
    // none. At least 1 µs of CPU per transaction more (about 5 µs measured here).
    assert!(
        variant >= base + 1000 && variant >= 3 * base,
        "performance_schema self time per transaction: ps_off {base} ns, all_enabled {variant} ns\n{diff}"
    );
    // The same growth, from the raw folded stacks and the cells' transactions.
    let cell = |name: &str| {
        r["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["variant"] == name)
            .unwrap()["profile"]
            .clone()
    };
    let per = |name: &str| {
        let p = cell(name);
        let f =
            fold::parse(&std::fs::read_to_string(out.join(p["folded"].as_str().unwrap())).unwrap())
                .unwrap();
        per_txn::per_transaction(&f, p["transactions"].as_u64().unwrap())
    };
    let pfs_total = |p: &per_txn::PerTxn| -> f64 {
        p.iter()
            .filter(|(s, _)| {
                s.split(';')
                    .any(|f| is_pfs_frame(f) && f != "pfs_spawn_thread")
            })
            .map(|(_, ns)| ns)
            .sum()
    };
    let (b, v) = (pfs_total(&per("ps_off")), pfs_total(&per("all_enabled")));
    assert!(
        v > b + 1000.0,
        "stacks through performance_schema: {b} ns vs {v} ns per transaction"
    );
    // The summary's table names performance_schema frames among those that grew (on a loaded
    // machine, scheduler frames of the kernel may grow more and come first).
    let summary = std::fs::read_to_string(out.join("profiles/summary.md")).unwrap();
    let named: Vec<&str> = summary
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .collect();
    assert!(named.iter().any(|f| is_pfs_frame(f)), "{summary}");
}
