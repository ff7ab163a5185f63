//! Two studies on one home at once, against real MariaDB sandboxes: started together, they
//! need the same dataset, so one loads it while the other waits (saying for what), and both
//! finish and land in the one history. A study whose history cannot be written keeps its own
//! results and says, in one line, how to add them later.

use crate::common;

use common::{psbench, text};
use std::path::Path;
use std::process::{Command, Output};

/// The tiny study under another name and with data of its own size: the two studies share
/// the dataset cache and its preparation, and no other test's.
fn study(name: &str) -> String {
    common::shards::TINY_STUDY
        .replace("name = \"shards\"", &format!("name = \"{name}\""))
        .replace("table_size = 500", "table_size = 777")
}

fn run_cmd(dir: &Path, home: &Path, name: &str) -> Command {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, study(name)).unwrap();
    let mut cmd = psbench(home);
    cmd.arg("run")
        .arg(&file)
        .args(["--rounds", "1"])
        .arg("--out")
        .arg(dir.join(format!("out-{name}")));
    cmd
}

#[test]
fn two_studies_started_together_on_one_home_both_finish_and_both_land_in_its_history() {
    let dir = common::tempdir().unwrap();
    let home = dir.path().join("home");
    let first = run_cmd(dir.path(), &home, "one").spawn_output();
    let second = run_cmd(dir.path(), &home, "two").spawn_output();
    let (first, second) = (first.join().unwrap(), second.join().unwrap());
    for o in [&first, &second] {
        assert!(o.status.success(), "{}", text(o));
    }
    for name in ["one", "two"] {
        let doc = common::results(&dir.path().join(format!("out-{name}")));
        assert_eq!(doc["cells"].as_array().unwrap().len(), 2, "{name}");
    }
    // At most one waits (the other may find the dataset already loaded), never both.
    let both = format!("{}{}", text(&first), text(&second));
    assert!(
        both.matches("waiting for the dataset").count() <= 1,
        "{both}"
    );
    // Both are points of the same series (same servers, settings and host).
    let shown = psbench(&home).args(["history", "1"]).output().unwrap();
    let series = String::from_utf8_lossy(&shown.stdout).to_string();
    assert!(shown.status.success(), "{}", text(&shown));
    for name in ["out-one", "out-two"] {
        assert!(series.contains(name), "{name} is in the history:\n{series}");
    }
}

#[test]
fn a_history_on_a_read_only_path_is_one_line_exit_2_and_the_study_keeps_its_results() {
    if !common::require::root("mounting a read-only tmpfs") {
        return;
    }
    let dir = common::tempdir().unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir_all(&ro).unwrap();
    // Root writes through file modes: only a read-only mount refuses it.
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m,ro", "tmpfs"])
        .arg(&ro)
        .status()
        .unwrap();
    assert!(mounted.success(), "mount -t tmpfs -o ro");
    let o = run_cmd(dir.path(), &dir.path().join("home"), "kept")
        .env("PSBENCH_HISTORY", ro.join("history.sqlite"))
        .output()
        .unwrap();
    let _ = Command::new("umount").arg(&ro).status();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.contains("was not updated") && last.contains("psbench history import"),
        "one line saying how to add the results later: {last}"
    );
    let out = dir.path().join("out-kept");
    assert_eq!(common::results(&out)["cells"].as_array().unwrap().len(), 2);
    assert!(
        out.join("summary.md").is_file(),
        "the report is written too"
    );
}

/// `Command::output` on a thread, so that two run at once.
trait SpawnOutput {
    fn spawn_output(self) -> std::thread::JoinHandle<Output>;
}

impl SpawnOutput for Command {
    fn spawn_output(mut self) -> std::thread::JoinHandle<Output> {
        std::thread::spawn(move || self.output().unwrap())
    }
}
