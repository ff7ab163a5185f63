//! MySQL 9.7 from Debian's unstable suite (9.7.2-4, or the newest 9.7 once the mirror drops it): `release` and
//! `no_pfs` configured side by side (a whole build takes hours here), each read back from the
//! CMakeCache.txt and the configuration header cmake wrote, which is how MySQL tells its
//! compiler which instrument classes are compiled out; and a pinned version the mirror does
//! not serve is found in the cache when it is there, refused in one line when it is not.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

/// The classes of instrumentation MySQL 9.7.2's configuration header can compile out.
const CLASSES: [&str; 20] = [
    "THREAD",
    "MUTEX",
    "RWLOCK",
    "COND",
    "FILE",
    "TABLE",
    "SOCKET",
    "STAGE",
    "STATEMENT",
    "SP",
    "PS",
    "IDLE",
    "ERROR",
    "STATEMENT_DIGEST",
    "METADATA",
    "MEMORY",
    "TRANSACTION",
    "SERVER_TELEMETRY_TRACES",
    "SERVER_TELEMETRY_LOGS",
    "METRICS",
];

fn header(build: &Path) -> String {
    std::fs::read_to_string(build.join("include/my_config.h")).unwrap()
}

#[test]
fn release_and_no_pfs_configure_and_the_classes_compiled_out_reach_the_compiler() {
    // 9.7.2-4 while the cache has it; the newest 9.7 once unstable has dropped it.
    let Some(source) = common::require::mysql_97_source() else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let builds = tmp.path().join("builds");
    let configure = |flags: &str| {
        common::psbench(&tmp.path().join("home"))
            .env("PSBENCH_BUILDS", &builds)
            .args([
                "build",
                "mysql",
                &source,
                "--flags",
                flags,
                "--configure-only",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // cmake's checks run mostly on one core: both configure steps side by side.
    let (release, no_pfs) = (configure("release"), configure("no_pfs"));
    let dir = |child: std::process::Child| -> PathBuf {
        let o: Output = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", common::text(&o));
        PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
    };
    let (release, no_pfs) = (dir(release), dir(no_pfs));
    for b in [&release, &no_pfs] {
        assert_eq!(
            common::require::cmake_cache_value(b, "CMAKE_BUILD_TYPE").as_deref(),
            Some("Release")
        );
        // Debian has no libcurl headers installed: the tarball's own curl is used.
        assert_eq!(
            common::require::cmake_cache_value(b, "WITH_CURL").as_deref(),
            Some("bundled")
        );
    }
    let (rel_h, off_h) = (header(&release), header(&no_pfs));
    for class in CLASSES {
        let key = format!("DISABLE_PSI_{class}");
        if class == psbench::engines::mysql::recipe::KEPT_PSI_CLASS {
            // 9.7.2 does not compile with the thread class out: no_pfs keeps it in.
            assert_eq!(
                common::require::cmake_cache_value(&no_pfs, &key).as_deref(),
                Some("OFF"),
                "{key}"
            );
            assert!(
                off_h.contains(&format!("/* #undef {key} */\n")),
                "no_pfs: {key}"
            );
            continue;
        }
        assert_eq!(
            common::require::cmake_cache_value(&no_pfs, &key).as_deref(),
            Some("ON"),
            "{key}"
        );
        assert_ne!(
            common::require::cmake_cache_value(&release, &key).as_deref(),
            Some("ON"),
            "{key}"
        );
        assert!(
            off_h.contains(&format!("#define {key} 1\n")),
            "no_pfs: {key}"
        );
        assert!(
            rel_h.contains(&format!("/* #undef {key} */\n")),
            "release: {key}"
        );
    }
    // Accepted by cmake, read by no code of this source: the read-back says so.
    assert_eq!(
        common::require::cmake_cache_value(&no_pfs, "DISABLE_PSI_DATA_LOCK").as_deref(),
        Some("ON")
    );
    assert!(!off_h.contains("DISABLE_PSI_DATA_LOCK"));
    // The header is where the flag set reaches the compiler: the `-DDISABLE_PSI_*` on compile
    // commands are the source's own choices for a few helper libraries (client-side mysys,
    // an InnoDB tool), the same in both builds.
    let on_commands = |b: &Path| -> Vec<String> {
        let ninja = std::fs::read_to_string(b.join("build.ninja")).unwrap();
        ninja
            .lines()
            .filter(|l| l.trim_start().starts_with("DEFINES = "))
            .flat_map(str::split_whitespace)
            .filter(|d| d.starts_with("-DDISABLE_PSI_"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(on_commands(&release), on_commands(&no_pfs));
}

/// `psbench build mysql SPEC --source-only` with psbench's cache in `cache`.
fn source_only(cache: &Path, spec: &str) -> Output {
    common::psbench(&cache.join("home"))
        .env("PSBENCH_CACHE", cache)
        .args(["build", "mysql", spec, "--source-only"])
        .output()
        .unwrap()
}

#[test]
fn a_pinned_version_is_found_in_the_cache_and_refused_in_one_line_when_neither_served_nor_cached() {
    let tmp = common::tempdir().unwrap();
    // Neither served nor cached: one line, naming what the mirror lists now, exit 2.
    let o = source_only(tmp.path(), "debian:mysql-9.7=9.6.0-1");
    let text = common::text(&o);
    assert_eq!(o.status.code(), Some(2), "{text}");
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("psbench:")).collect();
    assert_eq!(errors.len(), 1, "{text}");
    assert!(
        text.contains(
            "Debian's mysql-9.7 has no version 9.6.0-1 on the mirror now, nor in psbench's cache"
        ) && errors[0].contains("the mirror lists: 9.7."),
        "{text}"
    );
    // Not served, but in the cache (as a version the mirror dropped after it was fetched):
    // found there without asking the mirror.
    let dir = tmp.path().join("sources/mysql-9.7_9.6.0-1");
    std::fs::create_dir_all(dir.join("tree")).unwrap();
    std::fs::write(dir.join("tree/.unpacked"), "mysql-9.7 9.6.0-1\n").unwrap();
    let version = "MYSQL_VERSION_MAJOR=9\nMYSQL_VERSION_MINOR=6\nMYSQL_VERSION_PATCH=0\n";
    std::fs::write(dir.join("tree/MYSQL_VERSION"), version).unwrap();
    std::fs::write(dir.join("mysql-9.7_9.6.0-1.dsc"), "Source: mysql-9.7\n").unwrap();
    let o = source_only(tmp.path(), "debian:mysql-9.7=9.6.0-1");
    assert!(o.status.success(), "{}", common::text(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        dir.join("tree").display().to_string()
    );
}
