//! The set-up scripts on a Slurm compute node's package state: slurmd and munge installed and
//! enabled, no slurmctld. `dpkg-query`, `apt-get` and `systemctl` are stand-ins on the PATH
//! that answer from that state and log every call (so do `cargo`, `ln`, `useradd`, `sudo` and
//! `go`, and what writes policy-rc.d: nothing here builds, links or installs for real). The study set-up must not touch
//! Slurm, munge or any service; the tests' set-up may install what is missing of Slurm and
//! disable only the unit of the package it installed itself.

use crate::common;

use std::path::Path;
use std::process::Command;

/// What the node has installed, a package a line.
const NODE: &[&str] = &[
    "mariadb-server",
    "mariadb-client",
    "postgresql",
    "valgrind",
    "linux-perf",
    "maven",
    "gcc",
    "g++",
    "libc6-dev",
    "make",
    "cmake",
    "ninja-build",
    "bison",
    "flex",
    "ccache",
    "pkg-config",
    "dpkg-dev",
    "systemtap-sdt-dev",
    "libssl-dev",
    "libpcre2-dev",
    "libfmt-dev",
    "zlib1g-dev",
    "libncurses-dev",
    "libaio-dev",
    "libsqlite3-dev",
    "chromium",
    "python3",
    "python3-jsonschema",
    "golang-go",
    "curl",
    "ca-certificates",
    // Slurm's compute-node half, enabled for boot.
    "slurmd",
    "munge",
];

/// A stand-in program that logs `NAME ARGS` and then runs `body`.
fn stub(dir: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("#!/bin/sh\necho \"{name} $*\" >> \"$STUB_LOG\"\n{body}\n"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The stand-ins in `dir/bin`, the node's state in `dir/state`, their log in `dir/log`.
fn node(dir: &Path) {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(dir.join("state"), NODE.join("\n") + "\n").unwrap();
    std::fs::write(dir.join("enabled"), "slurmd\nmunge\n").unwrap();
    stub(
        &bin,
        "dpkg-query",
        r#"for p; do :; done
grep -qx "$p" "$STUB_STATE" && { echo "install ok installed"; exit 0; }
echo "dpkg-query: no packages found matching $p" >&2; exit 1"#,
    );
    stub(
        &bin,
        "apt-get",
        r#"[ "$1" = install ] || exit 0
for p; do case $p in -*|install) ;; *) echo "$p" >> "$STUB_STATE" ;; esac; done"#,
    );
    stub(
        &bin,
        "systemctl",
        r#"[ "$1" = is-enabled ] && { grep -qx "$2" "$STUB_ENABLED" && echo enabled || echo disabled; }
[ "$1" = disable ] && { grep -vx "$2" "$STUB_ENABLED" > "$STUB_ENABLED.new"; mv "$STUB_ENABLED.new" "$STUB_ENABLED"; }
exit 0"#,
    );
    stub(
        &bin,
        "cargo",
        r#"[ "$1" = --version ] && echo "cargo 1.0.0 (stand-in)"; exit 0"#,
    );
    stub(&bin, "ln", "exit 0");
    stub(&bin, "useradd", "exit 0");
    stub(&bin, "go", "exit 0");
    stub(&bin, "sudo", r#"exec "$@""#);
    // policy-rc.d, which keeps apt from starting services, is written and removed with these.
    stub(&bin, "tee", "cat > /dev/null");
    stub(&bin, "chmod", "exit 0");
    stub(&bin, "rm", "exit 0");
}

fn run(dir: &Path, script: &str) -> (bool, String, String) {
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    let target = dir.join("target");
    std::fs::create_dir_all(target.join("release")).unwrap();
    // The tests' set-up fetches with psbench: a stand-in here, which logs what it was asked.
    stub(&target.join("release"), "psbench", "exit 0");
    let o = Command::new("bash")
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scripts")
                .join(script),
        )
        .env("PATH", path)
        .env("STUB_LOG", dir.join("log"))
        .env("STUB_STATE", dir.join("state"))
        .env("STUB_ENABLED", dir.join("enabled"))
        .env("CARGO_TARGET_DIR", &target)
        .env("PSBENCH_CACHE", dir.join("cache"))
        .output()
        .unwrap();
    let log = std::fs::read_to_string(dir.join("log")).unwrap_or_default();
    (o.status.success(), common::text(&o), log)
}

#[test]
fn the_study_set_up_on_a_compute_node_installs_what_is_missing_and_leaves_slurm_and_services_alone()
{
    let tmp = common::tempdir().unwrap();
    node(tmp.path());
    let (ok, out, log) = run(tmp.path(), "setup.sh");
    assert!(ok, "{out}\n{log}");
    let installs: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("apt-get install"))
        .collect();
    assert_eq!(
        installs,
        ["apt-get install -y -q --no-install-recommends sysbench"],
        "{log}"
    );
    assert!(
        !log.contains("systemctl"),
        "set-up called systemctl:\n{log}"
    );
    for daemon in ["slurm", "munge"] {
        assert!(
            !log.lines()
                .any(|l| l.starts_with("apt-get") && l.contains(daemon)),
            "{log}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("enabled")).unwrap(),
        "slurmd\nmunge\n"
    );
    // Each change said as it is made.
    assert!(
        out.contains("setup: installing with apt: sysbench\n"),
        "{out}"
    );
    assert!(
        out.contains("setup: build psbench (release) into "),
        "{out}"
    );
    assert!(log.contains("cargo build --release --quiet"), "{log}");
}

#[test]
fn the_tests_set_up_installs_slurms_missing_half_and_disables_only_the_unit_it_installed() {
    let tmp = common::tempdir().unwrap();
    node(tmp.path());
    let (ok, out, log) = run(tmp.path(), "setup-tests.sh");
    assert!(ok, "{out}\n{log}");
    let installs: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("apt-get install"))
        .collect();
    assert_eq!(
        installs,
        ["apt-get install -y -q --no-install-recommends slurmctld slurm-client"],
        "{log}"
    );
    let systemctl: Vec<&str> = log.lines().filter(|l| l.starts_with("systemctl")).collect();
    assert_eq!(systemctl, ["systemctl disable slurmctld"], "{log}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("enabled")).unwrap(),
        "slurmd\nmunge\n",
        "the node's own units stay enabled"
    );
    assert!(
        out.contains("setup-tests: disable the unit slurmctld.service, installed just now"),
        "{out}"
    );
    // The releases and sources into psbench's cache, each said.
    assert!(log.contains("psbench fetch mariadb 11.4.5"), "{log}");
    assert!(
        out.contains("setup-tests: fetching mariadb 11.4.5 into "),
        "{out}"
    );
}

#[test]
fn a_dry_run_says_every_change_and_makes_none() {
    let tmp = common::tempdir().unwrap();
    node(tmp.path());
    std::fs::write(tmp.path().join("state"), "").unwrap();
    for script in ["setup.sh", "setup-tests.sh"] {
        std::fs::write(tmp.path().join("log"), "").unwrap();
        let path = format!(
            "{}:{}",
            tmp.path().join("bin").display(),
            std::env::var("PATH").unwrap()
        );
        let o = Command::new("bash")
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("scripts")
                    .join(script),
            )
            .arg("--dry-run")
            .env("PATH", path)
            .env("STUB_LOG", tmp.path().join("log"))
            .env("STUB_STATE", tmp.path().join("state"))
            .env("STUB_ENABLED", tmp.path().join("enabled"))
            .env("CARGO_TARGET_DIR", tmp.path().join("target"))
            .env("PSBENCH_CACHE", tmp.path().join("cache"))
            .output()
            .unwrap();
        let out = common::text(&o);
        assert!(o.status.success(), "{script}: {out}");
        let log = std::fs::read_to_string(tmp.path().join("log")).unwrap();
        // dpkg-query asked; nothing installed, built, linked or disabled.
        assert!(
            log.lines().all(|l| l.starts_with("dpkg-query")),
            "{script} ran more than dpkg-query:\n{log}"
        );
        assert!(out.contains("would install with apt: "), "{script}: {out}");
        assert!(
            out.contains("--dry-run: nothing was changed"),
            "{script}: {out}"
        );
    }
}
