//! The host as a study sees it, against real sandboxes of the system mariadbd: the probe at
//! the start of a study, cells flagged host-saturated, and server and client placed on CPUs
//! and read back from the kernel.

use crate::common;

use common::{psbench, results, text};
use psbench::probes::cpus::{allowed, threads_of, threads_of_tree};
use psbench::results::CpuList;
use psbench::server::{Home, SandboxSpec};
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The first `n` CPUs psbench may use here.
fn first_cpus(n: usize) -> CpuList {
    CpuList::of(allowed().cpus().iter().copied().take(n).collect())
}

/// Two CPUs, or None (said why) on a host that allows one.
fn two_cpus_or_skip() -> Option<(usize, usize)> {
    let two = match allowed().cpus() {
        [a, b, ..] => Some((*a, *b)),
        _ => None,
    };
    common::require::or_unmet(
        two,
        &format!(
            "placement needs two CPUs; psbench may use only {}",
            allowed()
        ),
        "a machine (or taskset -c) with two CPUs, as CI has",
    )
}

/// `cmd` run with every thread on `cpus`: started from a thread placed there, it inherits them.
fn output_on(cpus: &CpuList, mut cmd: Command) -> Output {
    std::thread::scope(|s| {
        s.spawn(|| {
            let _placed = psbench::driver::place_this_thread(cpus, "test").unwrap();
            cmd.output().unwrap()
        })
        .join()
        .unwrap()
    })
}

fn run_study(dir: &Path, body: &str, cpus: &CpuList) -> (Output, std::path::PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("study.toml");
    std::fs::write(&file, body).unwrap();
    let out = dir.join("out");
    let mut cmd = psbench(&dir.join("home"));
    cmd.arg("run").arg(&file).arg("--out").arg(&out);
    (output_on(cpus, cmd), out)
}

/// Point selects at 8 threads: on two CPUs (or one) server and client take them all. Never
/// contaminated, so that an attempt beyond the first could only come from saturation.
const SATURATING: &str = r#"
name = "saturating"
threads = [8]
rounds = 2
duration = 1.5
warmup = 0.3
[dataset]
table_size = 1000
[limits]
foreign_cpu_core_share = 100.0
[[variant]]
name = "ps_off"
scenario = "ps_off"
[[workload]]
workload = "oltp_point_select"
"#;

#[test]
fn a_study_probes_its_host_and_flags_cells_that_saturate_it() {
    let tmp = common::tempdir().unwrap();
    // At most two CPUs, whatever the host has: 8 threads saturate them.
    let cpus = first_cpus(2);
    let (o, out) = run_study(tmp.path(), SATURATING, &cpus);
    assert!(o.status.success(), "{}", text(&o));
    let r = results(&out);
    let probe = &r["host_probes"][0];
    assert_eq!(probe["cpus_allowed"], cpus.to_string(), "{probe}");
    let w = &probe["wakeup"];
    assert!(w["same_cpu_us"].as_f64().unwrap() > 0.0, "{w}");
    assert!(w["round_trips"].as_u64().unwrap() > 0, "{w}");
    assert_eq!(w["cross_cpu_us"].is_f64(), cpus.len() == 2, "{w}");
    assert!(!probe["governor"].as_str().unwrap().is_empty());
    assert!(probe["cpu_time_s"].as_f64().unwrap() > 0.0, "{probe}");
    for c in r["cells"].as_array().unwrap() {
        let flags = c["flags"].as_array().unwrap();
        assert!(flags.iter().any(|f| f == "host-saturated"), "{c}");
        assert_eq!(c["attempts"], 1, "saturation is not measured again: {c}");
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("### Host") && md.contains("| A/A spread of ps_off, point_select | 8 thr "),
        "{md}"
    );
    assert!(
        md.contains("\nhost-saturated: the CPUs psbench may use were busy"),
        "{md}"
    );
    assert!(!md.contains("Every round ran clean"), "{md}");
}

#[test]
fn a_placed_study_runs_server_and_client_where_asked_and_reads_them_back() {
    let Some((a, b)) = two_cpus_or_skip() else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let study = format!(
        "name = \"placed\"\nthreads = [1]\nrounds = 1\nduration = 1\nwarmup = 0.2\ncpus = {{ server = \"{a}\", client = \"{b}\" }}\n[dataset]\ntable_size = 1000\n[[variant]]\nname = \"ps_off\"\nscenario = \"ps_off\"\n[[workload]]\nworkload = \"oltp_point_select\"\n"
    );
    let (o, out) = run_study(tmp.path(), &study, allowed());
    assert!(o.status.success(), "{}", text(&o));
    let r = results(&out);
    assert_eq!(r["study"]["cpus"]["server"], a.to_string());
    let p = &r["variants"]["ps_off"]["placement"];
    assert_eq!(p["server"], serde_json::json!([a.to_string()]), "{p}");
    assert_eq!(p["client"], b.to_string(), "{p}");
    assert!(p["server_threads"].as_u64().unwrap() > 1, "{p}");
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let row = format!("| placement of ps_off, read back | server CPUs {a} (all ");
    assert!(
        md.contains(&row) && md.contains(&format!("client CPUs {b} |")),
        "{md}"
    );

    // CPUs it may not use, and a misspelt key, are the user's mistakes: exit 2, one line.
    let beyond = study.replace(&format!("server = \"{a}\""), "server = \"1023\"");
    let (o, _) = run_study(&tmp.path().join("beyond"), &beyond, allowed());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        err.contains("cpus.server = \"1023\": CPU 1023 outside the CPUs psbench may use"),
        "{err}"
    );
    assert!(
        err.trim()
            .lines()
            .last()
            .unwrap()
            .starts_with("psbench: error: cpus.server"),
        "{err}"
    );
    let misspelt = study.replace("server =", "sever =");
    let (o, _) = run_study(&tmp.path().join("misspelt"), &misspelt, allowed());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("sever"),
        "{}",
        text(&o)
    );
}

#[test]
fn every_thread_of_a_server_placed_on_one_cpu_reads_back_that_cpu() {
    let home = common::tempdir().unwrap();
    let one = first_cpus(1);
    let mut spec = SandboxSpec::new("one-cpu", Home::new(home.path()));
    spec.cpus = Some(one.clone());
    let sb = psbench::engines::start(spec).unwrap();
    // Connection threads too: the server starts them after start-up, from its own threads.
    let mut conns: Vec<_> = (0..4)
        .map(|_| sb.admin_endpoint().connect().unwrap())
        .collect();
    for c in &mut conns {
        use mysql::prelude::Queryable;
        c.query_drop("SELECT 1").unwrap();
    }
    let threads = threads_of_tree(sb.pid().unwrap()).unwrap();
    assert!(threads.len() > 4, "{threads:?}");
    for (tid, list) in &threads {
        assert_eq!(list, &one, "server thread {tid}");
    }
}

#[test]
fn bench_client_cpus_places_only_its_client_threads() {
    let Some((_, b)) = two_cpus_or_skip() else {
        return;
    };
    let (_dir, sb) = common::sandbox("bench-cpus");
    let conn = [
        format!("--mysql-port={}", sb.port()),
        "--mysql-user=root".to_string(),
        format!(
            "--mysql-password-file={}",
            sb.state().client_defaults().display()
        ),
        "--table-size=1000".to_string(),
    ];
    let bench = |extra: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_psbench"));
        c.args(["bench", "oltp_point_select"])
            .args(extra)
            .args(&conn);
        c
    };
    let o = bench(&["prepare"]).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let o = bench(&["run", "--client-cpus", "1023"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));

    let mut child = bench(&[
        "run",
        "--threads=2",
        "--time=4",
        &format!("--client-cpus={b}"),
    ])
    .stdout(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let pid = child.id() as i32;
    let comm = |tid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/comm")).unwrap_or_default()
    };
    let start = Instant::now();
    let workers = loop {
        let w: Vec<(i32, CpuList)> = threads_of(pid)
            .unwrap_or_default()
            .into_iter()
            .filter(|(tid, _)| comm(*tid).starts_with("psbench-w"))
            .collect();
        if w.len() == 2 || start.elapsed() > Duration::from_secs(3) {
            break w;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(workers.len(), 2, "the client's threads while it runs");
    for (tid, list) in &workers {
        assert_eq!(list.to_string(), b.to_string(), "client thread {tid}");
    }
    // The server it talks to is not moved.
    for (tid, list) in threads_of(sb.pid().unwrap()).unwrap() {
        assert_eq!(&list, allowed(), "server thread {tid}");
    }
    assert!(child.wait().unwrap().success());
}

#[test]
fn every_process_of_a_postgres_server_placed_on_one_cpu_reads_back_that_cpu() {
    let home = common::tempdir().unwrap();
    let one = first_cpus(1);
    let mut spec = SandboxSpec::new("pg-one-cpu", Home::new(home.path()));
    spec.family = Some(psbench::results::Family::Postgres);
    spec.cpus = Some(one.clone());
    let sb = psbench::engines::start(spec).unwrap();
    // Backends forked for connections after start-up inherit the postmaster's list.
    let admin = sb.state().pg_admin_endpoint();
    let conns: Vec<_> = (0..3).map(|_| admin.connect().unwrap()).collect();
    let threads = threads_of_tree(sb.pid().unwrap()).unwrap();
    assert!(
        threads.len() > 3 + 3,
        "postmaster, helpers and 3 backends: {threads:?}"
    );
    for (tid, list) in &threads {
        assert_eq!(list, &one, "server process {tid}");
    }
    drop(conns);
}
