//! Sharding a study over hosts (docs/sharding.md), against real MariaDB sandboxes: two shards
//! of a tiny study run here one after the other, as two hosts would (each with its own host
//! name), and merged, hold exactly the cells of an unsharded run of the same rounds; merging
//! what is not one study is refused; `--shard auto` takes its shard from a Slurm array that
//! does not start at 0.

use crate::common;

use common::{psbench, results, text};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

/// Cost mode for point select beside the throughput rounds: top-level keys, then its table.
const COST: (&str, &str) = (
    "mode = \"both\"\ncost_workloads = [\"point_select\"]\n",
    "[cost]\nevents = [100, 200, 300]\nwarmup_events = 50\n",
);

fn run(dir: &Path, host: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    psbench(&dir.join("home"))
        .arg("run")
        .arg(dir.join("study.toml"))
        .args(args)
        .env("PSBENCH_HOST_NAME", host)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", text(&o));
    o
}

fn merge(dir: &Path, shards: &[&Path], out: &str) -> Output {
    psbench(&dir.join("home"))
        .arg("merge")
        .args(shards)
        .arg("--out")
        .arg(dir.join(out))
        .output()
        .unwrap()
}

/// A usage error: exit code 2 and one line saying `says`.
fn refused(o: Output, says: &str) {
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains(says), "{t}");
    assert_eq!(t.lines().filter(|l| l.contains("error")).count(), 1, "{t}");
}

fn keys(r: &Value) -> BTreeSet<(String, String, u64, u64)> {
    r["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(c["ok"], true, "{c}");
            (
                c["variant"].as_str().unwrap().to_string(),
                c["step"].as_str().unwrap().to_string(),
                c["threads"].as_u64().unwrap(),
                c["round"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A copy of the results directory `from` with its document changed by `edit`.
fn edited(dir: &Path, from: &Path, name: &str, edit: impl Fn(&mut Value)) -> std::path::PathBuf {
    let to = dir.join(name);
    std::fs::create_dir_all(&to).unwrap();
    let mut r = results(from);
    edit(&mut r);
    std::fs::write(to.join("results.json"), serde_json::to_string(&r).unwrap()).unwrap();
    to
}

#[test]
fn two_shards_merge_into_the_cells_of_one_run() {
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("study.toml"),
        format!("{}{}{}", COST.0, common::shards::TINY_STUDY, COST.1),
    )
    .unwrap();
    let (s0, s1, whole) = (dir.join("s0"), dir.join("s1"), dir.join("whole"));
    ok(run(
        dir,
        "host-a",
        &["--shard", "0/2", "--out", s0.to_str().unwrap()],
        &[],
    ));
    // Shard 1 asks for cost mode too: merge then says how far the two hosts' counts agree.
    ok(run(
        dir,
        "host-b",
        &[
            "--shard",
            "1/2",
            "--cost-on-every-shard",
            "--out",
            s1.to_str().unwrap(),
        ],
        &[],
    ));
    ok(run(dir, "host-w", &["--out", whole.to_str().unwrap()], &[]));
    let (r0, r1, rw) = (results(&s0), results(&s1), results(&whole));
    // Each shard holds its own rounds, every variant in each, and rotates the order over
    // its own rounds (rounds 0 and 2 of a 2-way split would otherwise both run a first).
    assert_eq!(
        common::shards::rounds(&r0),
        [
            (0, "host-a".into(), "ab".into()),
            (2, "host-a".into(), "ba".into())
        ]
    );
    assert_eq!(
        common::shards::rounds(&r1),
        [
            (1, "host-b".into(), "ab".into()),
            (3, "host-b".into(), "ba".into())
        ]
    );
    assert_eq!(r0["sharding"]["shard"]["count"], 2);
    assert_eq!(
        r0["sharding"]["definition_sha256"],
        rw["sharding"]["definition_sha256"]
    );

    ok(merge(dir, &[&s1, &s0], "merged"));
    let m = results(&dir.join("merged"));
    assert_eq!(
        keys(&m),
        keys(&rw),
        "the merged cells are the unsharded run's"
    );
    assert_eq!(keys(&m).len(), 8);
    let hosts: Vec<(u64, String)> = common::shards::rounds(&m)
        .into_iter()
        .map(|(r, h, _)| (r, h))
        .collect();
    assert_eq!(
        hosts,
        [
            (0, "host-a".into()),
            (1, "host-b".into()),
            (2, "host-a".into()),
            (3, "host-b".into())
        ]
    );
    let parts = m["sharding"]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0]["host"], "host-a");
    assert_eq!(parts[0]["cost_kept"], true);
    // Each host's probe, once.
    let probed: Vec<&str> = m["host_probes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["host"].as_str().unwrap())
        .collect();
    assert_eq!(probed, ["host-a", "host-b"]);
    // Cost mode: shard 0's, once per variant; the other host's counts compared in a note.
    assert_eq!(m["cost"].as_array().unwrap().len(), 2);
    let notes = m["notes"].to_string();
    assert!(notes.contains("Cost mode ran on 2 hosts"), "{notes}");
    assert!(notes.contains("host-a, host-b"), "{notes}");
    // The report puts the hosts' spread of the base beside the effect.
    let md = std::fs::read_to_string(dir.join("merged/summary.md")).unwrap();
    assert!(md.contains("### Hosts"), "{md}");
    assert!(
        md.contains("- Hosts: a ran ") && md.contains("(point_select at 1 thread; 2 hosts)"),
        "{md}"
    );
    assert!(
        md.contains("| step | threads | a on host-a | a on host-b | host spread % | b / a |"),
        "{md}"
    );
    // report and compare read the merged document as any other.
    let o = ok(psbench(&dir.join("home"))
        .args(["report", dir.join("merged").to_str().unwrap()])
        .output()
        .unwrap());
    assert!(text(&o).contains("| b / a |"), "{}", text(&o));
    ok(psbench(&dir.join("home"))
        .args([
            "compare",
            whole.to_str().unwrap(),
            dir.join("merged").to_str().unwrap(),
        ])
        .output()
        .unwrap());

    // What is not one study does not merge.
    refused(merge(dir, &[&s0, &s0], "x"), "round 1 is in both");
    refused(
        merge(dir, &[&s0, &whole], "x"),
        "split the rounds differently",
    );
    let other = dir.join("other");
    ok(run(
        dir,
        "host-b",
        &[
            "--shard",
            "1/2",
            "--time",
            "0.6",
            "--out",
            other.to_str().unwrap(),
        ],
        &[],
    ));
    refused(
        merge(dir, &[&s0, &other], "x"),
        "ran different study definitions",
    );
    let rebuilt = edited(dir, &s1, "rebuilt", |r| {
        r["variants"]["b"]["server_sha256"] = "0".repeat(64).into();
    });
    refused(
        merge(dir, &[&s0, &rebuilt], "x"),
        "variant 'b' ran a different server binary",
    );
    let unfinished = edited(dir, &s1, "unfinished", |r| {
        r["finished_unix"] = Value::Null;
    });
    refused(merge(dir, &[&s0, &unfinished], "x"), "has not finished");
    refused(merge(dir, &[&s0], "x"), "at least two");
    refused(merge(dir, &[&s0, &s1], "s1"), "a directory of its own");
}

#[test]
fn shard_auto_takes_its_share_from_a_slurm_array_not_starting_at_zero() {
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("study.toml"), common::shards::TINY_STUDY).unwrap();
    let out = dir.join("task5");
    // sbatch --array=4-5: task 5 is shard 1 of 2.
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "5"),
        ("SLURM_ARRAY_TASK_MIN", "4"),
        ("SLURM_ARRAY_TASK_MAX", "5"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    ok(run(
        dir,
        "node-5",
        &["--shard", "auto", "--out", out.to_str().unwrap()],
        &slurm,
    ));
    let r = results(&out);
    let got: BTreeSet<u64> = keys(&r).into_iter().map(|k| k.3).collect();
    assert_eq!(got, BTreeSet::from([1, 3]));
    assert_eq!(r["sharding"]["shard"]["index"], 1);
    assert!(r["cost"].as_array().unwrap().is_empty());
    // A Kubernetes index without the number of shards is refused before anything starts.
    refused(
        run(
            dir,
            "pod",
            &["--shard", "auto"],
            &[("JOB_COMPLETION_INDEX", "1")],
        ),
        "PSBENCH_SHARDS",
    );
    refused(run(dir, "pod", &["--shard", "4/4"], &[]), "does not exist");
    refused(
        run(dir, "pod", &["--shard", "5/6"], &[]),
        "has none for shard 5/6",
    );
    refused(
        run(dir, "pod", &["--shard", "1/2", "--cost"], &[]),
        "a cost-mode study runs whole in shard 0",
    );
}
