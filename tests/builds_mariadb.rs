//! MariaDB's flag sets as cmake configures them, from Debian's source (the setup step fetched
//! it): `release` keeps the performance_schema plugin, `no_pfs` leaves it out, each read back
//! from the CMakeCache.txt cmake wrote. A whole MariaDB build takes tens of minutes here, so the
//! test runs the configure step of each (`psbench build --configure-only`), both at once.

mod common;

use std::path::{Path, PathBuf};

/// The MariaDB source the setup step fetched (see scripts/setup.sh for which version).
const SOURCE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

fn source_or_skip() -> bool {
    let tree = psbench::server::fetch::cache_dir()
        .join("sources/mariadb_10.11.18-0+deb12u1/tree/.unpacked");
    if !tree.is_file() {
        eprintln!(
            "SKIPPED: the source {SOURCE} is not in {} (bash scripts/setup.sh fetches it; see its output)",
            psbench::server::fetch::cache_dir().display()
        );
    }
    tree.is_file()
}

fn cache_value(build: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(build.join("CMakeCache.txt")).unwrap();
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.split(':').next()? == key).then(|| v.to_string())
    })
}

#[test]
fn release_configures_the_performance_schema_in_and_no_pfs_leaves_it_out() {
    if !source_or_skip() {
        return;
    }
    let tmp = common::tempdir().unwrap();
    let builds = tmp.path().join("builds");
    let configure = |flags: &'static str| {
        let mut c = common::psbench(&tmp.path().join("home"));
        c.env("PSBENCH_BUILDS", &builds).args([
            "build",
            "mariadb",
            SOURCE,
            "--flags",
            flags,
            "--configure-only",
        ]);
        c.spawn_output(flags)
    };
    // cmake's checks run mostly on one core: the two configure steps side by side.
    let release = configure("release");
    let no_pfs = configure("no_pfs");
    let (release, no_pfs): (PathBuf, PathBuf) = (release.join(), no_pfs.join());
    assert_eq!(
        cache_value(&release, "CMAKE_BUILD_TYPE").as_deref(),
        Some("Release")
    );
    assert_eq!(
        cache_value(&no_pfs, "PLUGIN_PERFSCHEMA").as_deref(),
        Some("NO")
    );
    assert_ne!(
        cache_value(&release, "PLUGIN_PERFSCHEMA").as_deref(),
        Some("NO")
    );
    // Only the release configuration builds the plugin's library into the server.
    let has_pfs = |b: &Path| {
        std::fs::read_to_string(b.join("build.ninja"))
            .unwrap()
            .contains("libperfschema.a")
    };
    assert!(
        has_pfs(&release),
        "release configured without performance_schema"
    );
    assert!(!has_pfs(&no_pfs), "no_pfs configured performance_schema in");
}

/// A psbench command run in the background, its build directory read from stdout at the end.
struct Running(std::process::Child, &'static str);

trait SpawnOutput {
    fn spawn_output(&mut self, what: &'static str) -> Running;
}

impl SpawnOutput for std::process::Command {
    fn spawn_output(&mut self, what: &'static str) -> Running {
        let child = self
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        Running(child, what)
    }
}

impl Running {
    fn join(self) -> PathBuf {
        let o = self.0.wait_with_output().unwrap();
        assert!(o.status.success(), "{}: {}", self.1, common::text(&o));
        PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
    }
}
