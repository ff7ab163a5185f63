//! docs/sharding.md's Slurm job array under a real Slurm (Debian's 22.05): a one-node cluster
//! from scripts/slurm.sh runs the page's array script and its merge job, both taken from the
//! page's fenced blocks and changed only in their paths (the psbench under test, a tiny
//! study, a temporary home), on real MariaDB sandboxes. A 2-task array and the merge after it
//! give one study with every round and both tasks as parts; then a task cancelled with
//! scancel after its first round, submitted again, finishes its shard through the script's
//! resume branch, and the merge holds every round again.
//!
//! One node stands in for one per task: scripts/slurm.sh's task prolog names each task's
//! host NODE-task<ID>, so that the merged report has its Hosts table.

use crate::common;

use common::{psbench, require, results, text};
use serde_json::Value;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The rounds the page's script asks for, split over the 2 tasks of the array.
const ROUNDS: u64 = 8;

/// The longest a job may run (sbatch --time, minutes) and the longest the test waits for one.
const JOB_MINUTES: u64 = 15;

fn wait_limit() -> Duration {
    Duration::from_secs(JOB_MINUTES * 60 + 60)
}

/// The two fenced blocks under "## A Slurm job array": the array script and the submit lines.
fn doc_blocks() -> (String, String) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/sharding.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let section = doc
        .split("\n## A Slurm job array\n")
        .nth(1)
        .expect("docs/sharding.md has a section \"A Slurm job array\"");
    let section = section.split("\n## ").next().unwrap();
    let blocks: Vec<String> = section
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("\n```").next().unwrap().to_string())
        .collect();
    assert_eq!(blocks.len(), 2, "{section}");
    (blocks[0].clone(), blocks[1].clone())
}

/// `text` with `from` replaced, which must occur `times` times: a change to the page's
/// script fails here rather than running something else.
fn replaced(text: &str, from: &str, to: &str, times: usize) -> String {
    assert_eq!(
        text.matches(from).count(),
        times,
        "docs/sharding.md's Slurm script changed: {from:?}\n{text}"
    );
    text.replace(from, to)
}

/// The page's array script, run by the psbench under test on the tiny study.
fn array_script(doc: &str) -> String {
    assert!(
        doc.contains("if [ -f \"$out/results.json\" ]; then"),
        "{doc}"
    );
    let bin = env!("CARGO_BIN_EXE_psbench");
    let s = replaced(doc, "psbench run ", &format!("{bin} run "), 2);
    replaced(&s, " run pfs-overhead ", " run \"$HOME/study.toml\" ", 1)
}

/// The page's merge command (the `--wrap` of its second sbatch), as its submitting shell
/// would pass it with HOME at `home`, run by the psbench under test.
fn merge_command(doc: &str, home: &Path) -> String {
    assert!(
        doc.contains("jobid=$(sbatch --parsable psbench-array.sh)"),
        "{doc}"
    );
    let wrap = doc
        .split("sbatch --dependency=afterok:$jobid --wrap \\\n")
        .nth(1)
        .expect("the merge is submitted with --dependency=afterok:$jobid --wrap");
    let wrap = wrap.trim().trim_matches('"');
    let s = replaced(
        wrap,
        "psbench merge ",
        &format!("{} merge ", env!("CARGO_BIN_EXE_psbench")),
        1,
    );
    replaced(&s, "$HOME", home.to_str().unwrap(), 2)
}

/// A job's HOME: the page's script runs `cd "$HOME/psbench"` and `bash scripts/setup.sh`
/// there; here that checkout's set-up is a stand-in, since cargo test built psbench.
fn job_home(dir: &Path, name: &str, script: &str) -> PathBuf {
    let home = dir.join(name);
    std::fs::create_dir_all(home.join("psbench/scripts")).unwrap();
    std::fs::write(
        home.join("psbench/scripts/setup.sh"),
        "echo \"setup: stand-in for task $SLURM_ARRAY_TASK_ID (cargo test built psbench)\"\n",
    )
    .unwrap();
    std::fs::write(home.join("study.toml"), common::shards::TINY_STUDY).unwrap();
    std::fs::write(home.join("psbench-array.sh"), script).unwrap();
    home
}

/// A cluster to submit to: the one SLURM_CONF names (its starter stops it), or one this
/// test starts with scripts/slurm.sh and stops, by the pids it recorded, when dropped.
struct Cluster {
    conf: PathBuf,
    started: Option<PathBuf>,
    /// Every job this test submits carries it (--comment), so that a failed test cancels
    /// its own jobs and no others.
    tag: String,
}

impl Cluster {
    fn up(dir: &Path) -> Cluster {
        let tag = format!("slurm_shards-{}", std::process::id());
        if let Some(conf) = std::env::var_os("SLURM_CONF") {
            eprintln!("slurm_shards: using the cluster of SLURM_CONF={conf:?}");
            return Cluster {
                conf: conf.into(),
                started: None,
                tag,
            };
        }
        let at = dir.join("cluster");
        let o = Command::new("bash")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm.sh"))
            .arg("start")
            .arg(&at)
            .output()
            .unwrap();
        // Stopped even when start failed half-way (start stops what it started, stop too).
        let cluster = Cluster {
            conf: at.join("slurm.conf"),
            started: Some(at),
            tag,
        };
        assert!(o.status.success(), "scripts/slurm.sh start: {}", text(&o));
        eprint!("{}", String::from_utf8_lossy(&o.stderr));
        cluster
    }

    fn cmd(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// sbatch in `home` (where the logs go), with HOME and psbench's home set; waits for
    /// sbatch to end (with --wait, for the job).
    fn sbatch(&self, home: &Path, psbench_home: &Path, args: &[&str]) -> Output {
        let mut c = self.cmd("sbatch");
        c.current_dir(home)
            .env("HOME", home)
            .env("PSBENCH_HOME", psbench_home)
            .arg(format!("--comment={}", self.tag))
            .arg(format!("--time={JOB_MINUTES}"))
            .args(args);
        finish(c, wait_limit(), &home.join("sbatch"))
    }

    /// Whether job `id` (every task of an array) is still pending or running.
    fn queued(&self, id: &str) -> bool {
        let o = self.cmd("squeue").args(["-h", "-j", id]).output().unwrap();
        // A job the controller has forgotten is an error: it is not queued either.
        o.status.success() && !o.stdout.is_empty()
    }

    fn state(&self, task: &str) -> String {
        let o = self
            .cmd("scontrol")
            .args(["show", "job", task])
            .output()
            .unwrap();
        text(&o)
    }

    /// The ids of this test's jobs still pending or running.
    fn own_jobs(&self) -> Vec<String> {
        let o = self
            .cmd("squeue")
            .args(["-h", "-o", "%F %k"])
            .output()
            .unwrap();
        let mut ids: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.split_once(' '))
            .filter(|(_, comment)| comment.trim() == self.tag)
            .map(|(id, _)| id.to_string())
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // A failed test leaves no job running psbench behind (nor a slurmstepd once slurmd
        // is gone).
        let ids = self.own_jobs();
        if !ids.is_empty() {
            eprintln!("slurm_shards: cancelling this test's jobs {ids:?}");
            let _ = self.cmd("scancel").args(&ids).status();
            let start = Instant::now();
            while !self.own_jobs().is_empty() && start.elapsed() < Duration::from_secs(90) {
                std::thread::sleep(Duration::from_millis(500));
            }
        }
        if let Some(at) = &self.started {
            let o = Command::new("bash")
                .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm.sh"))
                .arg("stop")
                .arg(at)
                .output();
            match o {
                Ok(o) => eprint!("{}", text(&o)),
                Err(e) => eprintln!("slurm_shards: scripts/slurm.sh stop: {e}"),
            }
        }
    }
}

/// Runs `cmd` to its end, its output into files beside `stem`; a command still running
/// after `limit` is killed (it is this test's own child) and fails the test.
fn finish(mut cmd: Command, limit: Duration, stem: &Path) -> Output {
    let (out, err) = (stem.with_extension("out"), stem.with_extension("err"));
    cmd.stdout(File::create(&out).unwrap())
        .stderr(File::create(&err).unwrap());
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    Output {
        status,
        stdout: std::fs::read(out).unwrap(),
        stderr: std::fs::read(err).unwrap(),
    }
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", text(&o));
    o
}

/// The job id `sbatch --parsable` printed (`ID` or `ID;CLUSTER`).
fn job_id(o: &Output) -> String {
    let s = String::from_utf8_lossy(&o.stdout);
    let id = s.trim().split(';').next().unwrap().to_string();
    assert!(
        !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()),
        "{}",
        text(o)
    );
    id
}

fn log(home: &Path, name: &str) -> String {
    std::fs::read_to_string(home.join(name))
        .unwrap_or_else(|e| panic!("{}: {e}", home.join(name).display()))
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// (variant, round) of each cell, every one of them measured.
fn cells(r: &Value) -> Vec<(String, u64)> {
    let mut cells: Vec<(String, u64)> = r["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(c["ok"], true, "{c}");
            assert_eq!(c["step"], "point_select", "{c}");
            (
                c["variant"].as_str().unwrap().to_string(),
                c["round"].as_u64().unwrap(),
            )
        })
        .collect();
    cells.sort();
    cells
}

/// Task `k`'s host, as the cluster's task prolog names it.
fn host(node: &str, k: u64) -> String {
    format!("{node}-task{k}")
}

/// Task `k`'s shard: share `k` of 2 of the rounds, each with both variants, on its host.
fn check_shard(r: &Value, node: &str, k: u64) {
    assert_eq!(r["sharding"]["shard"]["index"], k, "{}", r["sharding"]);
    assert_eq!(r["sharding"]["shard"]["count"], 2, "{}", r["sharding"]);
    assert!(r["finished_unix"].is_u64(), "shard {k} has not finished");
    let got: Vec<(u64, String)> = common::shards::rounds(r)
        .into_iter()
        .map(|(n, h, _)| (n, h))
        .collect();
    let want: Vec<(u64, String)> = (0..ROUNDS)
        .filter(|n| n % 2 == k)
        .map(|n| (n, host(node, k)))
        .collect();
    assert_eq!(got, want, "shard {k}");
    let want: Vec<(String, u64)> = ["a", "b"]
        .iter()
        .flat_map(|v| (k..ROUNDS).step_by(2).map(move |n| (v.to_string(), n)))
        .collect();
    assert_eq!(cells(r), want, "shard {k}");
}

/// The merged study: every round once with its task's host, every cell, both tasks as its
/// parts, and the Hosts table in its report.
fn check_merged(out: &Path, node: &str) {
    let m = results(out);
    assert!(m["finished_unix"].is_u64());
    let got: Vec<(u64, String)> = common::shards::rounds(&m)
        .into_iter()
        .map(|(n, h, _)| (n, h))
        .collect();
    let want: Vec<(u64, String)> = (0..ROUNDS).map(|n| (n, host(node, n % 2))).collect();
    assert_eq!(got, want);
    let want: Vec<(String, u64)> = ["a", "b"]
        .iter()
        .flat_map(|v| (0..ROUNDS).map(move |n| (v.to_string(), n)))
        .collect();
    assert_eq!(cells(&m), want);
    let parts = m["sharding"]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{parts:?}");
    let mut seen: Vec<(u64, String, Vec<u64>)> = parts
        .iter()
        .map(|p| {
            let rounds = p["rounds"].as_array().unwrap();
            (
                p["shard"]["index"].as_u64().unwrap(),
                p["host"].as_str().unwrap().to_string(),
                rounds.iter().map(|r| r.as_u64().unwrap()).collect(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            (0, host(node, 0), vec![0, 2, 4, 6]),
            (1, host(node, 1), vec![1, 3, 5, 7])
        ]
    );
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("### Hosts"), "{md}");
    let header = format!(
        "| step | threads | a on {} | a on {} | host spread % | b / a |",
        host(node, 0),
        host(node, 1)
    );
    assert!(md.contains(&header), "{header}\n{md}");
    assert!(md.contains("(point_select at 1 thread; 2 hosts)"), "{md}");
}

/// The cells of `round` in a shard's results so far (the document is replaced atomically
/// after every cell).
fn cells_of_round(shard: &Path, round: u64) -> usize {
    let Ok(text) = std::fs::read_to_string(shard.join("results.json")) else {
        return 0;
    };
    let r: Value = serde_json::from_str(&text).unwrap();
    r["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["round"] == round)
        .count()
}

#[test]
#[ignore = "needs root and Debian's Slurm (slurmctld slurmd slurm-client munge: bash scripts/setup.sh); starts its own one-node cluster with scripts/slurm.sh (or uses the one SLURM_CONF names) and stops it; run by scripts/test.sh as root, or as root: cargo test --release --test suite slurm_shards:: -- --ignored"]
fn the_pages_job_array_and_merge_run_and_resume_under_slurm() {
    if !require::root("a Slurm cluster (slurmd runs the jobs as root here)") {
        return;
    }
    let installed = [
        "/usr/sbin/slurmctld",
        "/usr/sbin/slurmd",
        "/usr/sbin/munged",
    ]
    .iter()
    .all(|p| Path::new(p).exists())
        && require::on_path("sbatch").is_some();
    if require::or_unmet(
        installed.then_some(()),
        "Debian's Slurm is not installed",
        "bash scripts/setup.sh (it installs slurmctld slurmd slurm-client munge)",
    )
    .is_none()
    {
        return;
    }
    let began = Instant::now();
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    let node = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    let (script, submit) = doc_blocks();
    let script = array_script(&script);
    let psbench_home = dir.join("psbench-home");
    let cluster = Cluster::up(dir);
    eprintln!("slurm_shards: cluster up after {:.0?}", began.elapsed());

    // The array, then the merge once every task succeeded.
    let first = job_home(dir, "first", &script);
    let t = Instant::now();
    let o = ok(cluster.sbatch(
        &first,
        &psbench_home,
        &["--wait", "--parsable", "--array=0-1", "psbench-array.sh"],
    ));
    let array = job_id(&o);
    for k in 0..2 {
        let log = log(&first, &format!("psbench-{array}_{k}.log"));
        assert!(
            log.contains(&format!("setup: stand-in for task {k}")),
            "{log}"
        );
        let shard = results(&first.join(format!("psbench-results/shard-{k}")));
        check_shard(&shard, &node, k);
    }
    eprintln!(
        "slurm_shards: array {array} (2 tasks) done in {:.0?}",
        t.elapsed()
    );
    let t = Instant::now();
    let after = format!("--dependency=afterok:{array}");
    let merge = merge_command(&submit, &first);
    let o = ok(cluster.sbatch(
        &first,
        &psbench_home,
        &["--wait", "--parsable", &after, "--wrap", &merge],
    ));
    check_merged(&first.join("psbench-results/merged"), &node);
    eprintln!(
        "slurm_shards: merge job {} after it done in {:.0?}: 8 rounds, 2 parts, Hosts table",
        job_id(&o),
        t.elapsed()
    );

    // Task 0 cancelled once its first round (round 0) is saved, then submitted again.
    let second = job_home(dir, "second", &script);
    let t = Instant::now();
    let o = ok(cluster.sbatch(
        &second,
        &psbench_home,
        &["--parsable", "--array=0-1", "psbench-array.sh"],
    ));
    let array = job_id(&o);
    let shard0 = second.join("psbench-results/shard-0");
    wait_for("task 0's first round", wait_limit(), || {
        cells_of_round(&shard0, 0) == 2
    });
    ok(cluster
        .cmd("scancel")
        .arg(format!("{array}_0"))
        .output()
        .unwrap());
    eprintln!(
        "slurm_shards: task {array}_0 cancelled after its first round, {:.0?} after submitting",
        t.elapsed()
    );
    wait_for("the array to leave the queue", wait_limit(), || {
        !cluster.queued(&array)
    });
    let state = cluster.state(&format!("{array}_0"));
    assert!(state.contains("JobState=CANCELLED"), "{state}");
    let cut = results(&shard0);
    assert!(
        cut["finished_unix"].is_null(),
        "task 0 finished its shard before it was cancelled"
    );
    let done = cells(&cut);
    // Round 0's 2 cells at least, short of a shard's 4 rounds of 2.
    assert!((2..8).contains(&done.len()), "{done:?}");
    let log0 = log(&second, &format!("psbench-{array}_0.log"));
    assert!(
        log0.contains("finish the rest with: psbench run --resume"),
        "{log0}"
    );
    let shard1 = second.join("psbench-results/shard-1");
    check_shard(&results(&shard1), &node, 1);
    // What is cut short does not merge.
    let o = psbench(&psbench_home)
        .arg("merge")
        .args([&shard0, &shard1])
        .arg("--out")
        .arg(dir.join("refused"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("has not finished"), "{}", text(&o));

    // Submitted again, the script takes its resume branch and finishes the shard.
    let t = Instant::now();
    let o = ok(cluster.sbatch(
        &second,
        &psbench_home,
        &["--wait", "--parsable", "--array=0", "psbench-array.sh"],
    ));
    let again = job_id(&o);
    let log0 = log(&second, &format!("psbench-{again}_0.log"));
    let resumed = format!(
        "resuming shards in {}: {} cell(s)",
        shard0.display(),
        done.len()
    );
    assert!(log0.contains(&resumed), "{resumed}\n{log0}");
    let finished = results(&shard0);
    check_shard(&finished, &node, 0);
    // The uninterrupted run's share and variant orders.
    let whole = results(&first.join("psbench-results/shard-0"));
    assert_eq!(
        common::shards::rounds(&finished),
        common::shards::rounds(&whole)
    );
    eprintln!(
        "slurm_shards: task 0 submitted again as {again}: resumed from {} cells, finished in {:.0?}",
        done.len(),
        t.elapsed()
    );
    let after = format!("--dependency=afterok:{again}");
    let merge = merge_command(&submit, &second);
    ok(cluster.sbatch(
        &second,
        &psbench_home,
        &["--wait", "--parsable", &after, "--wrap", &merge],
    ));
    check_merged(&second.join("psbench-results/merged"), &node);
    eprintln!(
        "slurm_shards: merged again: 8 rounds, 2 parts, Hosts table; {:.0?} in all",
        began.elapsed()
    );
}
