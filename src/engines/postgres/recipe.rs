//! Building PostgreSQL from source: its flag sets, and the configure and make commands that
//! build only what a sandbox runs — the server, initdb, pg_config, the snowball dictionaries
//! and PL/pgSQL that initdb loads, the time zone abbreviations, and pg_stat_statements — out
//! of tree, so that a source is never written to.

use crate::builds::recipe::{FlagSet, Layout, Recipe, Step};
use crate::error::usage;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Bumped when a flag set's options or the parts built change.
pub const RECIPE_VERSION: u32 = 1;

pub const FLAG_SETS: &[FlagSet] = &[
    FlagSet {
        name: "release",
        purpose: "-O2, as PostgreSQL's own default build",
        native: false,
    },
    FlagSet {
        name: "os",
        purpose: "-Os, as the embedded-postgres binaries on Maven Central are built (their pg_config says CFLAGS=-Os)",
        native: false,
    },
    FlagSet {
        name: "dtrace",
        purpose: "-O2 with --enable-dtrace: the static probes compiled in (needs systemtap-sdt-dev's dtrace)",
        native: false,
    },
];

/// The configure options of flag set `flags`.
pub fn options(flags: &str) -> Result<Vec<String>> {
    let common = [
        "--without-readline",
        "--without-icu",
        "--with-system-tzdata=/usr/share/zoneinfo",
    ];
    let own: &[&str] = match flags {
        "release" => &["CFLAGS=-O2"],
        "os" => &["CFLAGS=-Os"],
        "dtrace" => &["--enable-dtrace", "CFLAGS=-O2"],
        _ => {
            let names: Vec<&str> = FLAG_SETS.iter().map(|f| f.name).collect();
            return Err(usage(format!(
                "PostgreSQL has no flag set '{flags}' (it has: {})",
                names.join(", ")
            )));
        }
    };
    Ok(common.iter().chain(own).map(|s| s.to_string()).collect())
}

/// The release of the PostgreSQL source at `src` (from configure's PACKAGE_VERSION).
pub fn release(src: &Path) -> Result<String> {
    let configure = src.join("configure");
    let text = std::fs::read_to_string(&configure).map_err(|_| {
        usage(format!(
            "{} is not a PostgreSQL source tree: no configure script",
            src.display()
        ))
    })?;
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("PACKAGE_VERSION='"))
        .and_then(|v| v.strip_suffix('\''))
        .filter(|_| src.join("src/backend/main/main.c").is_file())
        .ok_or_else(|| {
            usage(format!(
                "{} is not a PostgreSQL source tree (no PACKAGE_VERSION in configure, or no src/backend)",
                src.display()
            ))
        })?;
    Ok(version.to_string())
}

/// What the sandbox needs, in build order: (directory, whether it is installed). The port
/// and common libraries are linked in; initdb links libpq, so libpq is installed beside it.
const PARTS: [(&str, bool); 10] = [
    ("src/port", false),
    ("src/common", false),
    ("src/backend", true),
    ("src/backend/snowball", true),
    ("src/pl/plpgsql/src", true),
    ("src/timezone", true),
    ("src/interfaces/libpq", true),
    ("src/bin/initdb", true),
    ("src/bin/pg_config", true),
    ("contrib/pg_stat_statements", true),
];

/// The recipe of flag set `flags` (and the user's `extra` configure options) for the source in
/// `layout`.
pub fn recipe(flags: &str, extra: &[String], layout: &Layout) -> Result<Recipe> {
    let options = options(flags)?;
    let release = release(&layout.source)?;
    let build = layout.build.clone();
    let mut configure = vec![
        layout.source.join("configure").display().to_string(),
        format!("--prefix={}", layout.prefix.display()),
    ];
    configure.extend(options.iter().cloned());
    configure.extend(extra.iter().cloned());
    if let Some(cc) = &layout.ccache {
        configure.push(format!("CC={} gcc", cc.display()));
    }
    let make = |args: &[&str]| -> Vec<String> {
        let mut v = vec!["make".to_string(), format!("-j{}", layout.jobs)];
        v.extend(args.iter().map(|s| s.to_string()));
        v
    };
    let compile: Vec<String> = PARTS
        .iter()
        .map(|(dir, _)| format!("make -j{} -C {dir}", layout.jobs))
        .collect();
    let install: Vec<String> = PARTS
        .iter()
        .filter(|(_, installed)| *installed)
        .map(|(dir, _)| format!("make -C {dir} install"))
        .collect();
    let step = |label: &str, argv: Vec<String>, units: Option<u64>| Step {
        label: label.to_string(),
        argv,
        dir: build.clone(),
        env: Vec::new(),
        units,
    };
    let units = PARTS
        .iter()
        .map(|(d, _)| count_c_files(&layout.source.join(d)))
        .sum::<u64>()
        + count_c_files(&layout.source.join("src/fe_utils"));
    Ok(Recipe {
        engine: "postgres".into(),
        release,
        flags: flags.to_string(),
        options,
        extra: extra.to_vec(),
        native: false,
        recipe_version: RECIPE_VERSION,
        disk_bytes: 1_500_000_000,
        steps: vec![
            step("configure", configure, None),
            step(
                "generate headers",
                make(&["-C", "src/backend", "generated-headers"]),
                None,
            ),
            step(
                "compile the server, initdb and pg_stat_statements",
                vec!["sh".into(), "-ec".into(), compile.join("\n")],
                Some(units),
            ),
            step(
                "install",
                vec!["sh".into(), "-ec".into(), install.join("\n")],
                None,
            ),
        ],
        server: PathBuf::from("bin/postgres"),
    })
}

/// C files under `dir` (the compile step's progress total; generated and skipped files make it
/// an estimate).
fn count_c_files(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                count_c_files(&p)
            } else {
                u64::from(p.extension().is_some_and(|x| x == "c"))
            }
        })
        .sum()
}

/// `pg_config --cflags` of an installed tree: the read-back of the flags it was built with.
pub fn cflags(tree: &Path, lib_dirs: &[PathBuf]) -> Result<String> {
    pg_config(tree, lib_dirs, "--cflags")
}

/// One `pg_config` answer of an installed tree.
fn pg_config(tree: &Path, lib_dirs: &[PathBuf], what: &str) -> Result<String> {
    let pg_config = tree.join("bin/pg_config");
    let out = std::process::Command::new(&pg_config)
        .arg(what)
        .env(
            "LD_LIBRARY_PATH",
            std::env::join_paths(lib_dirs).unwrap_or_default(),
        )
        .output()
        .with_context(|| format!("running {} {what}", pg_config.display()))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The flag set's options read back from the installed tree's `pg_config`: each `CFLAGS`
/// flag in `--cflags`, each configure option in `--configure`. The lines read back, or an
/// error naming what is missing.
pub fn read_back(tree: &Path, lib_dirs: &[PathBuf], options: &[String]) -> Result<Vec<String>> {
    let cflags = cflags(tree, lib_dirs)?;
    let configure = pg_config(tree, lib_dirs, "--configure")?;
    let (mut lines, mut missing) = (Vec::new(), Vec::new());
    for o in options {
        let (found, shown) = match o.strip_prefix("CFLAGS=") {
            Some(flags) => (
                flags
                    .split_whitespace()
                    .all(|f| cflags.split_whitespace().any(|c| c == f)),
                format!("--cflags has {flags}"),
            ),
            None => (
                configure.contains(o.as_str()),
                format!("--configure has {o}"),
            ),
        };
        if found {
            lines.push(shown);
        } else {
            missing.push(o.clone());
        }
    }
    anyhow::ensure!(
        missing.is_empty(),
        "pg_config does not show the flag set's {} (--cflags: {cflags})",
        missing.join(", ")
    );
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_sets_differ_in_their_optimisation_and_unknown_ones_are_usage_errors() {
        assert!(options("release")
            .unwrap()
            .contains(&"CFLAGS=-O2".to_string()));
        assert!(options("os").unwrap().contains(&"CFLAGS=-Os".to_string()));
        assert!(options("dtrace")
            .unwrap()
            .contains(&"--enable-dtrace".to_string()));
        let e = options("fast").unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(format!("{e}").contains("release, os, dtrace"), "{e}");
    }

    #[test]
    fn the_read_back_finds_a_tree_s_own_flags_and_names_those_it_lacks() {
        // Debian's own PostgreSQL 15, built with -O2 and the static probes.
        let tree = Path::new("/usr/lib/postgresql/15");
        if !tree.join("bin/pg_config").is_file() {
            eprintln!("SKIPPED: no {}/bin/pg_config", tree.display());
            return;
        }
        let asked = |o: &[&str]| o.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let lines = read_back(tree, &[], &asked(&["--enable-dtrace", "CFLAGS=-O2"])).unwrap();
        assert_eq!(
            lines,
            ["--configure has --enable-dtrace", "--cflags has -O2"]
        );
        let e = read_back(tree, &[], &asked(&["CFLAGS=-Os", "--without-icu"])).unwrap_err();
        assert!(
            e.to_string()
                .contains("does not show the flag set's CFLAGS=-Os, --without-icu"),
            "{e}"
        );
    }

    #[test]
    fn a_tree_that_is_not_postgres_is_refused_by_name() {
        let d = tempfile::tempdir().unwrap();
        let e = release(d.path()).unwrap_err();
        assert!(crate::error::is_usage(&e), "{e:#}");
    }
}
