//! Building MariaDB or MySQL from source: the flag sets of the builds in "What is the cost of
//! the performance schema in MySQL 5.7 and 8.0" (rel,
//! rel_less, performance_schema compiled out, native, native with LTO) plus LTO alone and
//! x86-64-v3, which valgrind can count, and the cmake commands that build a server tree with
//! the engines and tools a study does not use left out (of MySQL, only mysqld and the files
//! `mysqld --initialize` reads).

use crate::builds::recipe::{FlagSet, Layout, Recipe, Step};
use crate::error::usage;
use crate::results::Flavour;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Bumped when a flag set's options or the parts built change.
pub const RECIPE_VERSION: u32 = 3;

pub const FLAG_SETS: &[FlagSet] = &[
    FlagSet {
        name: "release",
        purpose: "CMAKE_BUILD_TYPE=Release: rel of \"What is the cost of the performance schema in MySQL 5.7 and 8.0\"",
        native: false,
    },
    FlagSet {
        name: "no_pfs",
        purpose: "release with performance_schema compiled out (MariaDB: the plugin not built; MySQL: every PSI instrument class but the thread class disabled, rel_lessps of \"What is the cost of the performance schema in MySQL 5.7 and 8.0\")",
        native: false,
    },
    FlagSet {
        name: "less",
        purpose: "release without the profiling code (and MySQL's HeatWave, WITH_RAPID): rel_less of \"What is the cost of the performance schema in MySQL 5.7 and 8.0\"",
        native: false,
    },
    FlagSet {
        name: "lto",
        purpose: "release with link-time optimisation (MySQL's WITH_LTO): what LTO changes, counted by valgrind",
        native: false,
    },
    FlagSet {
        name: "v3",
        purpose: "release for x86-64-v3 (AVX2): faster code valgrind can still run in cost mode",
        native: false,
    },
    FlagSet {
        name: "native",
        purpose: "release for this machine's CPU (-march=native -mtune=native): rel_native of \"What is the cost of the performance schema in MySQL 5.7 and 8.0\"",
        native: true,
    },
    FlagSet {
        name: "native_lto",
        purpose: "native plus link-time optimisation: rel_native_lto of \"What is the cost of the performance schema in MySQL 5.7 and 8.0\"",
        native: true,
    },
];

/// Options every flag set shares: only the server, its InnoDB and Aria, and what it needs to
/// start; no tests, no embedded server, no engines or plugins a study does not load.
fn common(flavour: Flavour) -> Vec<&'static str> {
    match flavour {
        Flavour::MariaDb => vec![
            "-DWITH_UNIT_TESTS=OFF",
            "-DWITH_EMBEDDED_SERVER=OFF",
            "-DWITH_WSREP=OFF",
            "-DWITH_MARIABACKUP=OFF",
            "-DWITH_SSL=system",
            "-DWITH_PCRE=system",
            "-DWITH_LIBFMT=system",
            "-DWITH_ZLIB=system",
            "-DPLUGIN_ROCKSDB=NO",
            "-DPLUGIN_MROONGA=NO",
            "-DPLUGIN_SPIDER=NO",
            "-DPLUGIN_CONNECT=NO",
            "-DPLUGIN_S3=NO",
            "-DPLUGIN_COLUMNSTORE=NO",
            "-DPLUGIN_OQGRAPH=NO",
            "-DPLUGIN_SPHINX=NO",
            "-DPLUGIN_TOKUDB=NO",
            "-DPLUGIN_FEDERATED=NO",
            "-DPLUGIN_FEDERATEDX=NO",
            "-DPLUGIN_ARCHIVE=NO",
            "-DPLUGIN_BLACKHOLE=NO",
            "-DPLUGIN_AUTH_PAM=NO",
            "-DPLUGIN_AUTH_GSSAPI=NO",
            "-DPLUGIN_HASHICORP_KEY_MANAGEMENT=NO",
            "-DPLUGIN_PROVIDER_BZIP2=NO",
            "-DPLUGIN_PROVIDER_LZ4=NO",
            "-DPLUGIN_PROVIDER_LZMA=NO",
            "-DPLUGIN_PROVIDER_LZO=NO",
            "-DPLUGIN_PROVIDER_SNAPPY=NO",
        ],
        Flavour::MySql => vec![
            "-DWITH_UNIT_TESTS=OFF",
            "-DWITH_ROUTER=OFF",
            "-DWITH_NDB=OFF",
            "-DWITH_NDBCLUSTER=OFF",
            "-DWITH_SSL=system",
            "-DWITH_ZLIB=bundled",
            // Debian has no libcurl headers installed; the tarball bundles curl.
            "-DWITH_CURL=bundled",
        ],
        Flavour::Postgres => Vec::new(),
    }
}

/// MySQL's instrument classes: its manual says performance_schema itself cannot be compiled
/// out, only every class of its instrumentation (PSI) disabled. The 18 of 8.0 (that study's
/// rel_lessps) and those 9.x added; a source that lacks one ignores it, and the read-back
/// says which reached the compiler.
const MYSQL_PSI: [&str; 22] = [
    "COND",
    "DATA_LOCK",
    "ERROR",
    "FILE",
    "IDLE",
    "MEMORY",
    "METADATA",
    "METRICS",
    "MUTEX",
    "PS",
    "RWLOCK",
    "SERVER_TELEMETRY_LOGS",
    "SERVER_TELEMETRY_TRACES",
    "SOCKET",
    "SP",
    "STAGE",
    "STATEMENT",
    "STATEMENT_DIGEST",
    "TABLE",
    "THREAD",
    "TLS_CHANNEL",
    "TRANSACTION",
];

/// The one class `no_pfs` leaves compiled in on MySQL: 9.7.2's
/// storage/perfschema/service_pfs_resource_group.cc calls `PSI_THREAD_CALL` with no
/// `HAVE_PSI_THREAD_INTERFACE` guard, so with the thread class out the server does not compile
/// ('psi_thread_service' was not declared in this scope). As much as can be compiled out, as
/// that study's rel_lessps asked.
pub const KEPT_PSI_CLASS: &str = "THREAD";

/// The options of flag set `flags` for `flavour`.
pub fn options(flavour: Flavour, flags: &str) -> Result<Vec<String>> {
    let mut o: Vec<String> = common(flavour).iter().map(|s| s.to_string()).collect();
    let release = "-DCMAKE_BUILD_TYPE=Release".to_string();
    let march = |m: &str| {
        vec![
            format!(
                "-DCMAKE_C_FLAGS=-march={m} -mtune={}",
                if m == "native" { "native" } else { "generic" }
            ),
            format!(
                "-DCMAKE_CXX_FLAGS=-march={m} -mtune={}",
                if m == "native" { "native" } else { "generic" }
            ),
        ]
    };
    match flags {
        "release" => o.push(release),
        "no_pfs" => {
            o.push(release);
            match flavour {
                Flavour::MySql => {
                    // DISABLE_ALL_PSI also quiets the warnings of the unused instrumentation.
                    o.push("-DDISABLE_ALL_PSI=ON".into());
                    o.extend(MYSQL_PSI.iter().map(|c| {
                        let off = if *c == KEPT_PSI_CLASS { "OFF" } else { "ON" };
                        format!("-DDISABLE_PSI_{c}={off}")
                    }))
                }
                Flavour::MariaDb | Flavour::Postgres => o.push("-DPLUGIN_PERFSCHEMA=NO".into()),
            }
        }
        "less" => {
            o.push(release);
            o.push("-DENABLED_PROFILING=OFF".into());
            if flavour == Flavour::MySql {
                o.push("-DWITH_RAPID=OFF".into());
            }
        }
        "v3" => {
            o.push(release);
            o.extend(march("x86-64-v3"));
        }
        "native" => {
            o.push(release);
            o.extend(march("native"));
        }
        "lto" | "native_lto" => {
            o.push(release);
            if flags == "native_lto" {
                o.extend(march("native"));
            }
            o.push(match flavour {
                Flavour::MySql => "-DWITH_LTO=ON".into(),
                Flavour::MariaDb | Flavour::Postgres => {
                    "-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON".into()
                }
            });
        }
        _ => {
            let names: Vec<&str> = FLAG_SETS.iter().map(|f| f.name).collect();
            return Err(usage(format!(
                "MariaDB and MySQL have no flag set '{flags}' (they have: {})",
                names.join(", ")
            )));
        }
    }
    Ok(o)
}

/// Which server a source tree is and its release: MariaDB's `VERSION` file, MySQL's
/// `MYSQL_VERSION`.
pub fn flavour_and_release(src: &Path) -> Result<(Flavour, String)> {
    let read = |name: &str| std::fs::read_to_string(src.join(name)).ok();
    let (flavour, text) = match (read("VERSION"), read("MYSQL_VERSION")) {
        (Some(t), _) if src.join("storage/maria").is_dir() => (Flavour::MariaDb, t),
        (_, Some(t)) => (Flavour::MySql, t),
        _ => {
            return Err(usage(format!(
                "{} is not a MariaDB or MySQL source tree (no VERSION with storage/maria, no MYSQL_VERSION)",
                src.display()
            )))
        }
    };
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k))
            .map(|v| v.trim_start_matches('=').trim().to_string())
            .unwrap_or_default()
    };
    let release = format!(
        "{}.{}.{}",
        field("MYSQL_VERSION_MAJOR"),
        field("MYSQL_VERSION_MINOR"),
        field("MYSQL_VERSION_PATCH")
    );
    Ok((flavour, release))
}

/// The recipe of flag set `flags` (and the user's `extra` cmake options) for the source in
/// `layout`.
pub fn recipe(flags: &str, extra: &[String], layout: &Layout) -> Result<Recipe> {
    let (flavour, release) = flavour_and_release(&layout.source)?;
    let options = options(flavour, flags)?;
    let native = FLAG_SETS.iter().any(|f| f.name == flags && f.native);
    let mut configure = vec![
        "cmake".to_string(),
        "-S".into(),
        layout.source.display().to_string(),
        "-B".into(),
        layout.build.display().to_string(),
        format!("-DCMAKE_INSTALL_PREFIX={}", layout.prefix.display()),
    ];
    if which("ninja") {
        configure.push("-GNinja".into());
    }
    if let Some(cc) = &layout.ccache {
        configure.push(format!("-DCMAKE_C_COMPILER_LAUNCHER={}", cc.display()));
        configure.push(format!("-DCMAKE_CXX_COMPILER_LAUNCHER={}", cc.display()));
    }
    configure.extend(options.iter().cloned());
    configure.extend(extra.iter().cloned());
    let step = |label: &str, argv: Vec<String>| Step {
        label: label.to_string(),
        argv,
        dir: layout.build.clone(),
        env: Vec::new(),
        units: None,
    };
    let build = layout.build.display().to_string();
    Ok(Recipe {
        engine: match flavour {
            Flavour::MySql => "mysql".into(),
            Flavour::MariaDb | Flavour::Postgres => "mariadb".into(),
        },
        release,
        flags: flags.to_string(),
        options,
        extra: extra.to_vec(),
        native,
        recipe_version: RECIPE_VERSION,
        disk_bytes: 6_000_000_000,
        steps: vec![
            step("configure", configure),
            step("compile", compile(flavour, &build, layout.jobs)),
            step("install", install(flavour, layout)),
        ],
        server: PathBuf::from(match flavour {
            Flavour::MySql => "bin/mysqld",
            Flavour::MariaDb | Flavour::Postgres => "bin/mariadbd",
        }),
    })
}

/// The compile command: MariaDB's whole (trimmed) tree; of MySQL only mysqld, which is most
/// of its 2,900 build steps and all a sandbox runs (its error messages are made on the way).
fn compile(flavour: Flavour, build: &str, jobs: usize) -> Vec<String> {
    let mut argv: Vec<String> = ["cmake", "--build", build, "--parallel"]
        .map(String::from)
        .into();
    argv.push(jobs.to_string());
    if flavour == Flavour::MySql {
        argv.extend(["--target".into(), "mysqld".into()]);
    }
    argv
}

/// The install command. MySQL's `cmake --install` wants every program of the tree, so a
/// MySQL build installs by hand what `mysqld --initialize-insecure` and a sandbox read:
/// bin/mysqld, the bundled libraries it links (ICU and protobuf are shared libraries of the
/// build: into lib/private, which the sandbox puts on the library path), the error messages
/// of every language and the character sets.
fn install(flavour: Flavour, layout: &Layout) -> Vec<String> {
    let build = layout.build.display().to_string();
    match flavour {
        Flavour::MySql => {
            let (src, prefix) = (layout.source.display(), layout.prefix.display());
            let script = format!(
                "set -e; mkdir -p '{prefix}/bin' '{prefix}/share' '{prefix}/lib/plugin' '{prefix}/lib/private'; \
                 cp '{build}/runtime_output_directory/mysqld' '{prefix}/bin/mysqld'; \
                 cp -P '{build}'/library_output_directory/*.so* '{prefix}/lib/private/'; \
                 cp -R '{build}/share/.' '{prefix}/share/'; \
                 cp -R '{src}/share/charsets' '{prefix}/share/charsets'; \
                 if [ -d '{build}/plugin_output_directory' ]; then cp -R '{build}/plugin_output_directory/.' '{prefix}/lib/plugin/'; fi"
            );
            vec!["sh".into(), "-c".into(), script]
        }
        Flavour::MariaDb | Flavour::Postgres => vec!["cmake".into(), "--install".into(), build],
    }
}

/// Only the configure step of a recipe: what CI checks of MariaDB's flag sets without the
/// half hour each build takes here.
pub fn configure_only(flags: &str, layout: &Layout) -> Result<Recipe> {
    let mut r = recipe(flags, &[], layout)?;
    r.steps.truncate(1);
    Ok(r)
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// A build's configuration as cmake recorded it: `KEY=VALUE` of `CMakeCache.txt` for the
/// keys the flag set names (the read-back of its options).
pub fn cmake_cache(dir: &Path, keys: &[&str]) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("CMakeCache.txt")).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('=')?;
            let name = k.split(':').next()?;
            keys.contains(&name)
                .then(|| (name.to_string(), v.to_string()))
        })
        .collect()
}

/// The flag set's `-DKEY=VALUE` options checked against the `CMakeCache.txt` kept in build
/// directory `dir`: the lines read back, or an error naming each option cmake recorded
/// otherwise. An option cmake did not record (a plugin this release does not have) is
/// listed as such.
pub fn read_back(dir: &Path, options: &[String]) -> Result<Vec<String>> {
    let wanted: Vec<(&str, &str)> = options
        .iter()
        .filter_map(|o| o.strip_prefix("-D")?.split_once('='))
        .map(|(k, v)| (k.split(':').next().unwrap_or(k), v))
        .collect();
    let keys: Vec<&str> = wanted.iter().map(|(k, _)| *k).collect();
    let cached = cmake_cache(dir, &keys);
    anyhow::ensure!(
        !cached.is_empty() || wanted.is_empty(),
        "no CMakeCache.txt with the build's options in {}",
        dir.display()
    );
    let (mut lines, mut wrong) = (Vec::new(), Vec::new());
    for (k, v) in wanted {
        match cached.iter().find(|(ck, _)| ck == k) {
            Some((_, got)) if got.eq_ignore_ascii_case(v) => lines.push(format!("{k}={got}")),
            Some((_, got)) => wrong.push(format!("{k}={got} (asked {v})")),
            None => lines.push(format!("{k}: not in CMakeCache.txt")),
        }
    }
    anyhow::ensure!(
        wrong.is_empty(),
        "cmake recorded other values than the flag set's: {}",
        wrong.join(", ")
    );
    lines.extend(psi_definitions(dir, options)?);
    Ok(lines)
}

/// What the compiler was told of the instrument classes: MySQL passes them in its
/// configuration header (`#define DISABLE_PSI_MUTEX 1` in include/my_config.h, kept with the
/// build), not on the compile commands. Each class asked off must be defined there, unless
/// the source has no such definition at all (cmake accepts the option, no code reads it: said
/// so); a build that asks none off defines none. Nothing to say of a server whose header
/// knows no such class (MariaDB).
pub fn psi_definitions(dir: &Path, options: &[String]) -> Result<Vec<String>> {
    let header = std::fs::read_to_string(dir.join("my_config.h")).unwrap_or_default();
    if !header.contains("DISABLE_PSI_") {
        return Ok(Vec::new());
    }
    let defined: Vec<&str> = header
        .lines()
        .filter_map(|l| l.strip_prefix("#define DISABLE_PSI_"))
        .map(|rest| rest.split(' ').next().unwrap_or(rest))
        .collect();
    let known = |c: &str| header.contains(&format!("DISABLE_PSI_{c} "));
    let asked: Vec<&str> = options
        .iter()
        .filter_map(|o| o.strip_prefix("-DDISABLE_PSI_")?.strip_suffix("=ON"))
        .collect();
    let missing: Vec<&&str> = asked
        .iter()
        .filter(|c| known(c) && !defined.contains(c))
        .collect();
    let stray: Vec<&&str> = defined.iter().filter(|c| !asked.contains(c)).collect();
    anyhow::ensure!(
        missing.is_empty() && stray.is_empty(),
        "my_config.h tells the compiler otherwise: {}",
        missing
            .iter()
            .map(|c| format!("DISABLE_PSI_{c} not defined"))
            .chain(
                stray
                    .iter()
                    .map(|c| format!("DISABLE_PSI_{c} defined, not asked"))
            )
            .collect::<Vec<_>>()
            .join(", ")
    );
    let reached: Vec<&str> = asked
        .iter()
        .copied()
        .filter(|c| defined.contains(c))
        .collect();
    let inert: Vec<&str> = asked.iter().copied().filter(|c| !known(c)).collect();
    let mut lines = Vec::new();
    match reached.is_empty() {
        true => {
            lines.push("my_config.h: no DISABLE_PSI_*, every instrument class compiled in".into())
        }
        false => lines.push(format!(
            "my_config.h: DISABLE_PSI_{} ({} classes)",
            reached.join(", DISABLE_PSI_"),
            reached.len()
        )),
    }
    if !inert.is_empty() {
        lines.push(format!(
            "DISABLE_PSI_{}: no such definition in this source (cmake keeps the option, no code reads it)",
            inert.join(", DISABLE_PSI_")
        ));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_pfs_compiles_performance_schema_out_each_way() {
        let m = options(Flavour::MariaDb, "no_pfs").unwrap();
        assert!(m.contains(&"-DPLUGIN_PERFSCHEMA=NO".to_string()));
        assert!(!options(Flavour::MariaDb, "release")
            .unwrap()
            .iter()
            .any(|o| o.contains("PERFSCHEMA")));
        let my = options(Flavour::MySql, "no_pfs").unwrap();
        assert_eq!(
            my.iter()
                .filter(|o| o.starts_with("-DDISABLE_PSI_") && o.ends_with("=ON"))
                .count(),
            21
        );
        // The one class 9.7.2 cannot compile without, in the archived build's order.
        assert!(my.contains(&"-DDISABLE_PSI_THREAD=OFF".to_string()));
        assert!(options(Flavour::MySql, "less")
            .unwrap()
            .contains(&"-DWITH_RAPID=OFF".to_string()));
        assert!(options(Flavour::MariaDb, "v3")
            .unwrap()
            .iter()
            .any(|o| o.contains("-march=x86-64-v3")));
        let e = options(Flavour::MariaDb, "fast").unwrap_err();
        assert!(crate::error::is_usage(&e));
    }

    #[test]
    fn the_read_back_compares_each_option_with_what_cmake_recorded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("CMakeCache.txt"),
            "// comment\nCMAKE_BUILD_TYPE:STRING=Release\nPLUGIN_PERFSCHEMA:STRING=NO\n",
        )
        .unwrap();
        let asked = |o: &[&str]| o.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let lines = read_back(
            dir.path(),
            &asked(&[
                "-DCMAKE_BUILD_TYPE=Release",
                "-DPLUGIN_PERFSCHEMA=NO",
                "-DPLUGIN_TOKUDB=NO",
            ]),
        )
        .unwrap();
        assert_eq!(
            lines,
            [
                "CMAKE_BUILD_TYPE=Release",
                "PLUGIN_PERFSCHEMA=NO",
                "PLUGIN_TOKUDB: not in CMakeCache.txt"
            ]
        );
        // A flag set whose option did not reach cmake is refused, naming it.
        let e = read_back(dir.path(), &asked(&["-DPLUGIN_PERFSCHEMA=YES"])).unwrap_err();
        assert!(
            e.to_string().contains("PLUGIN_PERFSCHEMA=NO (asked YES)"),
            "{e}"
        );
    }

    #[test]
    fn the_classes_compiled_out_are_read_from_the_configuration_header() {
        let dir = tempfile::tempdir().unwrap();
        let header = |lines: &str| std::fs::write(dir.path().join("my_config.h"), lines).unwrap();
        let asked = options(Flavour::MySql, "no_pfs").unwrap();
        // As MySQL 9.7.2 wrote it: every class its config.h.cmake knows, and no DATA_LOCK line.
        let known = [
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
        // no_pfs leaves the thread class in: its line is cmake's `#undef`.
        let on: String = known
            .iter()
            .map(|c| match *c == KEPT_PSI_CLASS {
                true => format!("/* #undef DISABLE_PSI_{c} */\n"),
                false => format!("#define DISABLE_PSI_{c} 1\n"),
            })
            .collect();
        header(&on);
        let lines = psi_definitions(dir.path(), &asked).unwrap();
        assert!(lines[0].ends_with("(19 classes)"), "{lines:?}");
        assert!(
            lines[1].starts_with("DISABLE_PSI_DATA_LOCK, DISABLE_PSI_TLS_CHANNEL: no such"),
            "{lines:?}"
        );
        // One class the header leaves compiled in is a build that is not what it says.
        header(&on.replace(
            "#define DISABLE_PSI_MUTEX 1",
            "/* #undef DISABLE_PSI_MUTEX */",
        ));
        let e = psi_definitions(dir.path(), &asked).unwrap_err().to_string();
        assert!(e.contains("DISABLE_PSI_MUTEX not defined"), "{e}");
        // A release build defines none, and one defined there is refused.
        let off: String = known
            .iter()
            .map(|c| format!("/* #undef DISABLE_PSI_{c} */\n"))
            .collect();
        header(&off);
        let release = options(Flavour::MySql, "release").unwrap();
        assert_eq!(
            psi_definitions(dir.path(), &release).unwrap(),
            ["my_config.h: no DISABLE_PSI_*, every instrument class compiled in"]
        );
        header(&off.replace(
            "/* #undef DISABLE_PSI_STAGE */",
            "#define DISABLE_PSI_STAGE 1",
        ));
        let e = psi_definitions(dir.path(), &release)
            .unwrap_err()
            .to_string();
        assert!(e.contains("DISABLE_PSI_STAGE defined, not asked"), "{e}");
        // MariaDB's header has no such classes: nothing to say.
        header("#define HAVE_PSI_INTERFACE 1\n");
        assert!(psi_definitions(dir.path(), &release).unwrap().is_empty());
    }
}
