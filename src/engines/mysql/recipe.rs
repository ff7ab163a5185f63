//! Building MariaDB or MySQL from source: the flag sets of the published builds study (rel,
//! rel_less, performance_schema compiled out, native, native with LTO) plus x86-64-v3, which
//! valgrind can count, and the cmake commands that build a server tree with the engines and
//! tools a study does not use left out.

use crate::builds::recipe::{FlagSet, Layout, Recipe, Step};
use crate::error::usage;
use crate::results::Flavour;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Bumped when a flag set's options or the parts built change.
const RECIPE_VERSION: u32 = 1;

pub const FLAG_SETS: &[FlagSet] = &[
    FlagSet {
        name: "release",
        purpose: "CMAKE_BUILD_TYPE=Release: the published study's rel",
        native: false,
    },
    FlagSet {
        name: "no_pfs",
        purpose: "release with performance_schema compiled out (MariaDB: the plugin not built; MySQL: every PSI instrument class disabled)",
        native: false,
    },
    FlagSet {
        name: "less",
        purpose: "release without the profiling code (and MySQL's HeatWave, WITH_RAPID): the published rel_less",
        native: false,
    },
    FlagSet {
        name: "v3",
        purpose: "release for x86-64-v3 (AVX2): faster code valgrind can still run in cost mode",
        native: false,
    },
    FlagSet {
        name: "native",
        purpose: "release for this machine's CPU (-march=native -mtune=native): the published rel_native",
        native: true,
    },
    FlagSet {
        name: "native_lto",
        purpose: "native plus link-time optimisation: the published rel_native_lto",
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
        ],
        Flavour::Postgres => Vec::new(),
    }
}

/// MySQL's instrument classes: its manual says performance_schema itself cannot be compiled
/// out, only every class of its instrumentation (PSI) disabled.
const MYSQL_PSI: [&str; 18] = [
    "COND",
    "DATA_LOCK",
    "ERROR",
    "FILE",
    "IDLE",
    "MEMORY",
    "METADATA",
    "MUTEX",
    "PS",
    "RWLOCK",
    "SOCKET",
    "SP",
    "STAGE",
    "STATEMENT",
    "STATEMENT_DIGEST",
    "TABLE",
    "THREAD",
    "TRANSACTION",
];

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
                    o.extend(MYSQL_PSI.iter().map(|c| format!("-DDISABLE_PSI_{c}=ON")))
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
        "native_lto" => {
            o.push(release);
            o.extend(march("native"));
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
            step(
                "compile",
                vec![
                    "cmake".into(),
                    "--build".into(),
                    build.clone(),
                    "--parallel".into(),
                    layout.jobs.to_string(),
                ],
            ),
            step("install", vec!["cmake".into(), "--install".into(), build]),
        ],
        server: PathBuf::from(match flavour {
            Flavour::MySql => "bin/mysqld",
            Flavour::MariaDb | Flavour::Postgres => "bin/mariadbd",
        }),
    })
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
                .filter(|o| o.starts_with("-DDISABLE_PSI_"))
                .count(),
            18
        );
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
}
