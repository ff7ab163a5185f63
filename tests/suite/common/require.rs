//! What a test needs from the machine beyond the crate: a release or source in psbench's
//! cache, Chromium, root, a tmpfs, two CPUs. Under `CI=true` a missing one fails the test,
//! naming what is missing and the command that provides it: CI's set-up provides them all,
//! so a skip there would pass a test that checked nothing. Elsewhere the test says what it
//! skipped and why, and its caller returns.

use std::path::PathBuf;

/// Whether this run is CI's (`CI=true`, as CI services set it).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// A precondition that does not hold: under CI a failure, elsewhere one SKIPPED line (the
/// caller then returns without checking).
pub fn unmet(what: &str, provide: &str) {
    if in_ci() {
        panic!("precondition missing under CI=true: {what}; provide it with: {provide}");
    }
    eprintln!("SKIPPED: {what} (provide it with: {provide})");
}

/// `value`, or `None` after [`unmet`] when there is none.
pub fn or_unmet<T>(value: Option<T>, what: &str, provide: &str) -> Option<T> {
    if value.is_none() {
        unmet(what, provide);
    }
    value
}

/// The basedir of a release (`mariadb-11.4.5`, `mysql-8.0.15`) in psbench's cache, which the
/// set-up step fills: tests fetch nothing themselves.
pub fn cached_release(name: &str) -> Option<PathBuf> {
    use psbench::engines::{fetch, releases::Release};
    let r = Release::parse(name).unwrap();
    let cache = psbench::server::fetch::cache_dir();
    let found = fetch::cached(&r, &cache).then(|| fetch::basedir(&r, &cache));
    let (engine, version) = name.split_once('-').unwrap();
    or_unmet(
        found,
        &format!("{name} is not in {}", cache.display()),
        &format!("bash scripts/setup.sh (or psbench fetch {engine} {version})"),
    )
}

/// A program on the PATH, found as a shell would.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Debian's Chromium, for the tests that render a page as a reader sees it.
pub fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find_map(on_path);
    or_unmet(
        found,
        "chromium is not on the PATH",
        "bash scripts/setup.sh (it installs Debian's chromium)",
    )
}

/// Python 3 with Debian's jsonschema, which checks an export against a published schema.
pub fn python3_jsonschema() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import jsonschema"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        unmet(
            "python3 cannot import jsonschema",
            "bash scripts/setup-tests.sh (it installs Debian's python3-jsonschema)",
        );
    }
    ok
}

/// Whether this test runs as root (acting as other users, mounting a tmpfs).
pub fn root(why: &str) -> bool {
    let root = psbench::server::account::running_as_root();
    if !root {
        unmet(
            &format!("{why} needs root"),
            "run the tests as root, as CI does (sudo bash scripts/test.sh)",
        );
    }
    root
}

/// Whether Debian's source `spec`, unpacked as `dir` under psbench's cache (`sources/DIR`), is
/// there: the set-up step fetches the ones the tests configure.
pub fn debian_source(engine: &str, spec: &str, dir: &str) -> bool {
    let cache = psbench::server::fetch::cache_dir();
    let tree = cache.join("sources").join(dir).join("tree/.unpacked");
    or_unmet(
        tree.is_file().then_some(()),
        &format!("the source {spec} is not in {}", cache.display()),
        &format!("bash scripts/setup.sh (or psbench build {engine} {spec} --source-only)"),
    )
    .is_some()
}

/// A CMake cache entry (`KEY:TYPE=value`) of a configured build directory.
pub fn cmake_cache_value(build: &std::path::Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(build.join("CMakeCache.txt")).unwrap();
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.split(':').next()? == key).then(|| v.to_string())
    })
}

/// The directory of psbench's own build archives: `PSBENCH_SHARED_BUILDS`, else `shared/builds`
/// beside the checkout (CI has it there).
pub fn shared_builds_dir() -> PathBuf {
    match std::env::var_os("PSBENCH_SHARED_BUILDS").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/builds"),
    }
}

/// The archive of MySQL 9.7.2 built with flag set `flags` among [`shared_builds_dir`]'s.
pub fn shared_build(flags: &str) -> Option<PathBuf> {
    let dir = shared_builds_dir();
    let prefix = format!("mysql-9.7.2-{flags}-");
    let found = std::fs::read_dir(&dir).ok().and_then(|entries| {
        entries.flatten().map(|e| e.path()).find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".tar.xz"))
        })
    });
    or_unmet(
        found,
        &format!("no {prefix}*.tar.xz in {}", dir.display()),
        "the build archives beside the checkout (shared/builds), or PSBENCH_SHARED_BUILDS naming their directory",
    )
}

/// The MySQL 9.7.2 build of flag set `flags` in psbench's build cache (scripts/test.sh imports
/// the archives there), as (its directory, its record).
pub fn mysql_97_build(flags: &str) -> Option<(PathBuf, psbench::builds::BuildRecord)> {
    let dir = psbench::builds::cache::builds_dir();
    let found = psbench::builds::cache::list(&dir)
        .into_iter()
        .find(|(_, r)| r.engine == "mysql" && r.release == "9.7.2" && r.flags == flags);
    or_unmet(
        found,
        &format!(
            "no MySQL 9.7.2 build of flag set {flags} in {}",
            dir.display()
        ),
        "bash scripts/test.sh (it imports ../shared/builds), or psbench build import ARCHIVE",
    )
}

/// The MySQL 9.7 source the configure checks read: the pinned `9.7.2-4` (the archived builds'
/// own) when psbench's cache has it, else the newest `mysql-9.7` the set-up step could fetch
/// once the mirror dropped it. Its `debian:` spec.
pub fn mysql_97_source() -> Option<String> {
    let sources = psbench::server::fetch::cache_dir().join("sources");
    let mut versions: Vec<String> = std::fs::read_dir(&sources)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("tree/.unpacked").is_file())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("mysql-9.7_").map(str::to_string)
        })
        .collect();
    versions.sort();
    let pick = match versions.iter().any(|v| v == "9.7.2-4") {
        true => Some("9.7.2-4".to_string()),
        false => versions.pop(),
    };
    or_unmet(
        pick.map(|v| format!("debian:mysql-9.7={v}")),
        &format!("no mysql-9.7 source in {}", sources.display()),
        "bash scripts/test.sh (its set-up fetches debian:mysql-9.7=9.7.2-4, or the newest mysql-9.7 once the mirror drops that)",
    )
}
