//! PostgreSQL built from Debian's source (the setup step fetched the source of the installed
//! release). In the test command: bad input refused with exit 2, a failed build leaving only
//! its log, a flag set configured and its flags read back from what configure wrote. Ignored
//! there (a cold build takes 4 to 5 minutes of both cores): one flag set built for real into
//! a private build cache and read back with pg_config, the cache reused, then the build and
//! the system's binary as variants of one study, in throughput and cost mode, each with its
//! identity recorded.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The installed PostgreSQL 15's Debian source, if the setup step fetched it.
fn source_or_skip() -> Option<String> {
    let version = common::require::or_unmet(
        psbench::builds::debian::installed_version("postgresql-15"),
        "Debian's postgresql-15 is not installed",
        "bash scripts/setup.sh",
    )?;
    let plain = version.split_once(':').map_or(version.as_str(), |(_, v)| v);
    let tree = psbench::server::fetch::cache_dir()
        .join("sources")
        .join(format!("postgresql-15_{plain}"))
        .join("tree/.unpacked");
    common::require::or_unmet(
        tree.is_file().then_some(version.clone()),
        &format!(
            "the source of postgresql-15 {version} is not in {}",
            psbench::server::fetch::cache_dir().display()
        ),
        "bash scripts/setup.sh (or psbench build postgres debian:postgresql-15 --source-only)",
    )
}

struct Builds {
    home: PathBuf,
    dir: PathBuf,
}

impl Builds {
    fn run(&self, args: &[&str]) -> Output {
        common::psbench(&self.home)
            .env("PSBENCH_BUILDS", &self.dir)
            .args(args)
            .output()
            .unwrap()
    }

    /// Build `flags` and return the tree it printed.
    fn build(&self, flags: &str) -> (PathBuf, String) {
        let o = self.run(&[
            "build",
            "postgres",
            "debian:postgresql-15",
            "--flags",
            flags,
        ]);
        assert!(o.status.success(), "{}", common::text(&o));
        let tree = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        (tree, String::from_utf8_lossy(&o.stderr).to_string())
    }

    /// The build directories with a finished build, and anything half-built.
    fn entries(&self) -> (Vec<String>, Vec<String>) {
        let names: Vec<String> = std::fs::read_dir(&self.dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        let finished = names
            .iter()
            .filter(|n| self.dir.join(n).join("build.json").is_file())
            .cloned()
            .collect();
        let partial = names
            .iter()
            .filter(|n| n.starts_with(".partial"))
            .cloned()
            .collect();
        (finished, partial)
    }
}

fn cflags(tree: &Path) -> String {
    let o = Command::new(tree.join("bin/pg_config"))
        .arg("--cflags")
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn record(tree: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(tree.parent().unwrap().join("build.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn postgres_flag_sets_configure_and_read_back_and_bad_input_or_a_failed_build_leaves_nothing() {
    if source_or_skip().is_none() {
        return;
    }
    let tmp = common::tempdir().unwrap();
    let b = Builds {
        home: tmp.path().join("home"),
        dir: tmp.path().join("builds"),
    };

    // Bad input: exit 2, one line, before anything is built.
    let o = b.run(&[
        "build",
        "postgres",
        "debian:postgresql-15",
        "--flags",
        "fast",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o));
    assert!(
        common::text(&o).contains("release, os, dtrace"),
        "{}",
        common::text(&o)
    );
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = b.run(&["build", "postgres", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o));
    assert!(
        common::text(&o).contains("not a PostgreSQL source tree"),
        "{}",
        common::text(&o)
    );

    // A compile failure (configure refuses the compiler flag): exit 1, one line naming the
    // log, which says why; nothing half-built left.
    let o = b.run(&[
        "build",
        "postgres",
        "debian:postgresql-15",
        "--extra=CFLAGS=-fno-such-option-in-psbench",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", common::text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let last = err.lines().last().unwrap();
    let log = last
        .split_whitespace()
        .find(|w| w.ends_with(".log"))
        .unwrap_or_else(|| panic!("no log named: {err}"));
    assert!(std::fs::read_to_string(log)
        .unwrap()
        .contains("fno-such-option-in-psbench"));
    assert_eq!(b.entries(), (vec![], vec![]), "left behind after a failure");

    // A flag set configured, read back from the Makefile.global its configure wrote.
    let o = b.run(&[
        "build",
        "postgres",
        "debian:postgresql-15",
        "--flags",
        "os",
        "--configure-only",
    ]);
    assert!(o.status.success(), "{}", common::text(&o));
    let configured = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    let makefile = std::fs::read_to_string(configured.join("src/Makefile.global")).unwrap();
    let os_flags = makefile
        .lines()
        .find(|l| l.starts_with("CFLAGS = "))
        .unwrap_or_else(|| panic!("no CFLAGS in {}", configured.display()));
    assert!(
        os_flags.contains("-Os") && !os_flags.contains("-O2"),
        "{os_flags}"
    );
}

#[test]
#[ignore = "builds PostgreSQL 15 from source (4 to 5 minutes of both cores), beyond what CI's 40 minutes leave: cargo test --release --test suite builds_postgres:: -- --ignored"]
fn postgres_builds_from_debian_source_and_runs_beside_the_systems_binary_as_variants() {
    let Some(version) = source_or_skip() else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let b = Builds {
        home: tmp.path().join("home"),
        dir: tmp.path().join("builds"),
    };

    // A flag set built, read back from its own pg_config.
    let (release, _) = b.build("release");
    let rel_flags = cflags(&release);
    assert!(
        rel_flags.contains("-O2") && !rel_flags.contains("-Os"),
        "{rel_flags}"
    );
    let r = record(&release);
    assert_eq!(r["source"], format!("debian:postgresql-15={version}"));
    assert!(r["options"]
        .as_array()
        .unwrap()
        .contains(&"CFLAGS=-O2".into()));

    // The same request again is the cached build.
    let (again, note) = b.build("release");
    assert_eq!(again, release);
    assert!(note.contains("from the cache"), "{note}");
    assert_eq!(record(&again)["built_unix"], r["built_unix"]);
    let o = b.run(&["build", "--list"]);
    let list = common::text(&o);
    assert!(list.contains(r["name"].as_str().unwrap()), "{list}");

    // The build and the system's binary as variants: throughput and cost mode, identities.
    let study = r#"
name = "pgbuilds"
mode = "both"
rounds = 1
threads = [1]
warmup = 0.3
duration = 1
[dataset]
table_size = 1000
[cost]
events = [200, 400, 600]
warmup_events = 200
[[variant]]
name = "system"
engine = "postgres"
[[variant]]
name = "rel"
build = { source = "debian:postgresql-15", flags = "release" }
[[workload]]
workload = "oltp_point_select"
"#;
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, study).unwrap();
    let out = tmp.path().join("out");
    let o = b.run(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::text(&o));
    let res = common::results(&out);
    let build = |v: &str| res["variants"][v]["build"].clone();
    assert_eq!(build("system")["origin"]["kind"], "system");
    assert_eq!(build("rel")["origin"]["kind"], "build", "{}", build("rel"));
    assert_eq!(build("rel")["origin"]["flags"], "release");
    assert!(build("rel")["build_flags"]
        .as_array()
        .unwrap()
        .contains(&"CFLAGS=-O2".into()));
    assert_eq!(build("rel")["sha256"], r["binary_sha256"]);
    assert_ne!(
        build("rel")["sha256"],
        build("system")["sha256"],
        "the build ran the system's binary"
    );
    let costed: Vec<&str> = res["cost"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ir_per_txn"].as_f64().unwrap_or(0.0) > 0.0)
        .map(|c| c["variant"].as_str().unwrap())
        .collect();
    for v in ["system", "rel"] {
        assert!(costed.contains(&v), "no cost result for {v}: {costed:?}");
    }

    // --remove takes it out of the cache.
    let o = b.run(&["build", "--remove", r["name"].as_str().unwrap()]);
    assert!(o.status.success(), "{}", common::text(&o));
    assert!(b.entries().0.is_empty(), "{:?}", b.entries());
}
