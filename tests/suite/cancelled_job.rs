//! A scheduler cancelling a job signals each of its processes in turn (Slurm's scancel, a
//! Kubernetes pod's deletion). A child can die a moment before psbench's own signal arrives;
//! the run must still end as a stop, with where its finished cells are, not as a failure.

use crate::common;

use common::{psbench, text};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

const STUDY: &str = r#"
name = "cancelled"
threads = [1]
rounds = 2
duration = 1
warmup = 0
[dataset]
table_size = 500
[[variant]]
name = "a"
[[workload]]
workload = "oltp_point_select"
"#;

#[test]
fn a_child_killed_just_before_psbench_is_a_stop_with_its_resume_hint() {
    let tmp = common::tempdir().unwrap();
    let dir = tmp.path();
    // A `cp` that records its pid and waits, so the signals can land while it runs: the
    // datadir copy is psbench's child at that moment. On SIGTERM it dies of it at once,
    // leaving nothing that holds psbench's pipes open.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let marker = dir.join("cp.pid");
    let cp = bin.join("cp");
    std::fs::write(
        &cp,
        format!(
            "#!/bin/sh\n\
             echo $$ > {}\n\
             sleep 120 </dev/null >/dev/null 2>&1 &\n\
             trap 'kill $!; trap - TERM; kill -TERM $$' TERM\n\
             wait $!\n\
             exec /bin/cp \"$@\"\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&cp, std::fs::Permissions::from_mode(0o755)).unwrap();
    let study = dir.join("study.toml");
    std::fs::write(&study, STUDY).unwrap();
    let out = dir.join("out");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = psbench(&dir.join("home"))
        .env("PATH", path)
        .arg("run")
        .arg(&study)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let cp_pid = loop {
        if let Some(pid) = std::fs::read_to_string(&marker)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            break pid;
        }
        if child.try_wait().unwrap().is_some() {
            let o = child.wait_with_output().unwrap();
            panic!("psbench exited before it copied a datadir: {}", text(&o));
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "psbench never copied a datadir"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // The child first, psbench a tenth of a second later, as a scheduler does.
    kill(Pid::from_raw(cp_pid), Signal::SIGTERM).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let o = child.wait_with_output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(128 + 15), "{t}");
    assert!(t.contains("SIGTERM received"), "{t}");
    assert!(
        t.contains("finish the rest with: psbench run --resume"),
        "{t}"
    );
    assert!(!t.contains("psbench: error"), "{t}");
}
