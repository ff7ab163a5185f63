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
