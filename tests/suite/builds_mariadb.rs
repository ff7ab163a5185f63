//! MariaDB's flag sets as cmake configures them, from Debian's source (the setup step fetched
//! it): `release` keeps the performance_schema plugin, `no_pfs` leaves it out, each read back
//! from the CMakeCache.txt cmake wrote. A whole MariaDB build takes tens of minutes here, so the
//! test runs the configure step of each (`psbench build --configure-only`), both at once.

use crate::common;

use std::path::{Path, PathBuf};

/// The MariaDB source the setup step fetched (see scripts/setup.sh for which version).
const SOURCE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

#[test]
fn release_configures_the_performance_schema_in_and_no_pfs_leaves_it_out() {
    if !common::require::debian_source("mariadb", SOURCE, "mariadb_10.11.18-0+deb12u1") {
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
        common::require::cmake_cache_value(&release, "CMAKE_BUILD_TYPE").as_deref(),
        Some("Release")
    );
    assert_eq!(
        common::require::cmake_cache_value(&no_pfs, "PLUGIN_PERFSCHEMA").as_deref(),
        Some("NO")
    );
    assert_ne!(
        common::require::cmake_cache_value(&release, "PLUGIN_PERFSCHEMA").as_deref(),
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

/// A CPU with AVX-512, which valgrind 3.19 cannot run, and one without (flags passed in, so
/// both branches are tried on any machine).
const AVX512_CPU: &str = "fpu sse4_2 avx2 avx512f avx512dq avx512cd avx512bw avx512vl";
const AVX2_CPU: &str = "fpu sse4_2 avx2";

#[test]
fn cost_mode_refuses_a_native_build_on_a_cpu_valgrind_cannot_run() {
    let native = |mode: &str| {
        format!(
            r#"
name = "native-cost"
mode = "{mode}"
[[variant]]
name = "rel"
build = {{ source = "{SOURCE}", flags = "release" }}
[[variant]]
name = "native"
build = {{ source = "{SOURCE}", flags = "native" }}
[[workload]]
workload = "oltp_point_select"
"#
        )
    };
    // With AVX-512: a cost-mode study is refused by name before anything is built.
    let (code, text, nothing_built) = run_on(&native("cost"), AVX512_CPU, &[]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("AVX-512 (avx512f, avx512dq"), "{text}");
    assert!(text.contains("variant 'native'"), "{text}");
    assert!(nothing_built, "built before the refusal");
    // ... and with mode = "both" the native build is timed, not counted.
    let (code, text, _) = run_on(&native("both"), AVX512_CPU, &["--plan"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("cost mode: 1 count(s)"), "{text}");
    // Without AVX-512 both builds are counted, and cost mode is not refused.
    let (code, text, _) = run_on(&native("both"), AVX2_CPU, &["--plan"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("cost mode: 2 count(s)"), "{text}");
    let (code, text, _) = run_on(&native("cost"), AVX2_CPU, &["--plan"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("cost mode: 2 count(s)"), "{text}");
}

#[test]
fn a_scenario_that_needs_performance_schema_is_refused_on_a_no_pfs_build_before_any_build() {
    let (code, text, nothing_built) = run_refused(&format!(
        r#"
name = "no-pfs-default"
[[variant]]
name = "off"
[[variant]]
name = "compiled_out_on"
build = {{ source = "{SOURCE}", flags = "no_pfs" }}
scenario = "default"
[[workload]]
workload = "oltp_point_select"
"#
    ));
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("variant 'compiled_out_on': scenario 'default' needs performance_schema"),
        "{text}"
    );
    assert!(nothing_built, "built before the refusal");
}

/// Runs `study` (TOML) with a private build cache; its exit status and output, and whether the
/// cache was left empty (nothing built).
fn run_refused(study: &str) -> (Option<i32>, String, bool) {
    run_on(study, &psbench::builds::toolchain::cpu_flags(), &[])
}

/// [`run_refused`] as on a CPU with these flags, with more arguments to `run`.
fn run_on(study: &str, cpu_flags: &str, args: &[&str]) -> (Option<i32>, String, bool) {
    let tmp = common::tempdir().unwrap();
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, study).unwrap();
    let builds = tmp.path().join("builds");
    let o = common::psbench(&tmp.path().join("home"))
        .env("PSBENCH_BUILDS", &builds)
        .env("PSBENCH_CPU_FLAGS", cpu_flags)
        .args(["run", file.to_str().unwrap(), "--out"])
        .arg(tmp.path().join("out"))
        .args(args)
        .output()
        .unwrap();
    let nothing_built = !builds.exists() || std::fs::read_dir(&builds).unwrap().next().is_none();
    (o.status.code(), common::text(&o), nothing_built)
}

/// The no_pfs build of [`SOURCE`] in psbench's own build cache, if one was made there
/// (`psbench build mariadb SOURCE --flags no_pfs`: about 20 minutes here, so CI does not).
fn cached_no_pfs_build() -> Option<PathBuf> {
    let dir = psbench::builds::cache::builds_dir();
    psbench::builds::cache::list(&dir)
        .into_iter()
        .find(|(_, r)| r.flags == "no_pfs" && r.source.starts_with(SOURCE) && r.engine == "mariadb")
        .map(|(d, _)| d)
}

#[test]
#[ignore = "needs a no_pfs build of MariaDB 10.11.18 (about 17 min on 2 cores), more than CI's budget: psbench build mariadb debian:mariadb=1:10.11.18-0+deb12u1 --flags no_pfs, then cargo test --release --test suite builds_mariadb:: -- --ignored"]
fn a_no_pfs_build_runs_with_performance_schema_compiled_out_and_ps_off_is_what_it_is() {
    let dir = cached_no_pfs_build().unwrap_or_else(|| {
        panic!(
            "no no_pfs build of {SOURCE} in {} (psbench build mariadb {SOURCE} --flags no_pfs makes one)",
            psbench::builds::cache::builds_dir().display()
        )
    });
    let tmp = common::tempdir().unwrap();
    let home = tmp.path().join("home");
    // The cached build again: found at once, its options read back from its CMakeCache.txt.
    let o = common::psbench(&home)
        .args(["build", "mariadb", SOURCE, "--flags", "no_pfs"])
        .output()
        .unwrap();
    let text = common::text(&o);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("from the cache"), "{text}");
    assert!(text.contains("PLUGIN_PERFSCHEMA=NO"), "{text}");
    assert_eq!(
        PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
        dir.join("tree")
    );
    // As variants: plain, and with ps_off, whose performance_schema=OFF such a server would
    // refuse as an unknown option.
    let file = tmp.path().join("s.toml");
    std::fs::write(
        &file,
        format!(
            r#"
name = "no-pfs"
rounds = 1
threads = [1]
warmup = 0.3
duration = 1
[dataset]
table_size = 1000
[[variant]]
name = "no_pfs"
build = {{ source = "{SOURCE}", flags = "no_pfs" }}
[[variant]]
name = "no_pfs_off"
build = {{ source = "{SOURCE}", flags = "no_pfs" }}
scenario = "ps_off"
[[workload]]
workload = "oltp_point_select"
"#
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = common::psbench(&home)
        .args(["run", file.to_str().unwrap(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::text(&o));
    let res = common::results(&out);
    for v in ["no_pfs", "no_pfs_off"] {
        let p = &res["variants"][v];
        assert_eq!(p["pfs"]["compiled_out"], true, "{v}: {}", p["pfs"]);
        assert_eq!(p["build"]["origin"]["flags"], "no_pfs", "{v}");
        assert!(
            !p["options"].to_string().contains("performance_schema"),
            "{v} was started with {}",
            p["options"]
        );
    }
}
