//! Writing the results history and results.json when it cannot go as planned: studies
//! finishing at the same moment all land in one history, none refused as "database is
//! locked"; a history on a full disk is one line, exit 1 (the machine's state, not a
//! mistake); results.json on a full disk leaves the one before it whole and no partial file.

use crate::common;

use common::{psbench, text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/report-study");

/// The fixture as a study finished `n` days later.
fn copy_of(dir: &Path, n: u64) -> PathBuf {
    common::write_document(dir, &format!("study{n}"), &common::days_later(FIXTURE, n))
}

/// A small tmpfs at `dir`, filled to the last byte; unmounted on drop.
struct FullDisk(PathBuf);

impl FullDisk {
    fn mount(dir: &Path) -> Option<FullDisk> {
        if !common::require::root("mounting a small tmpfs") {
            return None;
        }
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
            .arg(dir)
            .status()
            .unwrap();
        assert!(ok.success(), "mount -t tmpfs");
        Some(FullDisk(dir.to_path_buf()))
    }

    fn fill(&self) {
        let mut f = std::fs::File::create(self.0.join("filler")).unwrap();
        let block = vec![0u8; 4096];
        while std::io::Write::write_all(&mut f, &block).is_ok() {}
    }
}

impl Drop for FullDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn studies_finishing_at_the_same_moment_all_land_in_one_history() {
    let dir = common::tempdir().unwrap();
    let home = dir.path().join("home");
    let docs: Vec<PathBuf> = (1..=6).map(|n| copy_of(dir.path(), n)).collect();
    // Six processes at once on a history none of them has made yet.
    let children: Vec<_> = docs
        .iter()
        .map(|d| {
            psbench(&home)
                .args(["history", "import"])
                .arg(d)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
        assert!(!text(&o).contains("locked"), "{}", text(&o));
    }
    let o = psbench(&home).args(["history"]).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // Every series of the study holds all six points.
    let list = String::from_utf8_lossy(&o.stdout).to_string();
    let series: Vec<&str> = list
        .lines()
        .filter(|l| l.contains(" points, newest"))
        .collect();
    assert_eq!(series.len(), 20, "{list}");
    for line in series {
        assert!(line.contains(": 6 points,"), "{line}");
    }
}

#[test]
fn a_history_on_a_full_disk_is_one_line_exit_1() {
    let dir = common::tempdir().unwrap();
    let Some(disk) = FullDisk::mount(&dir.path().join("full")) else {
        return;
    };
    disk.fill();
    let o = psbench(&dir.path().join("home"))
        .args(["history", "import", FIXTURE])
        .env("PSBENCH_HISTORY", disk.0.join("history.sqlite"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn results_json_on_a_full_disk_keeps_the_one_before_and_leaves_no_partial_file() {
    let dir = common::tempdir().unwrap();
    let Some(disk) = FullDisk::mount(&dir.path().join("full")) else {
        return;
    };
    let target = disk.0.join("results.json");
    let before = serde_json::json!({"format": "before"});
    psbench::results::io::write_atomically(&target, &before).unwrap();
    disk.fill();
    let big = serde_json::json!({"rows": vec!["x".repeat(100); 10_000]});
    let err = psbench::results::io::write_atomically(&target, &big).unwrap_err();
    assert!(
        !psbench::error::is_usage(&err),
        "a full disk exits 1: {err:#}"
    );
    assert_eq!(psbench::error::exit_code(&err), 1);
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(kept, before);
    let left: Vec<_> = std::fs::read_dir(&disk.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "partial files left: {left:?}");
}
