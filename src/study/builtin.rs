//! Built-in studies, kept as TOML files under `studies/` so that they double as examples.

use super::file::parse;
use crate::error::usage;
use crate::results::study::Study;
use anyhow::Result;

pub const BUILTIN: &[(&str, &str)] = &[
    (
        "pfs-overhead",
        include_str!("../../studies/pfs-overhead.toml"),
    ),
    (
        "pfs-threads",
        include_str!("../../studies/pfs-threads.toml"),
    ),
    ("pfs-ibench", include_str!("../../studies/pfs-ibench.toml")),
    ("pfs-builds", include_str!("../../studies/pfs-builds.toml")),
    (
        "pfs-builds-1thread",
        include_str!("../../studies/pfs-builds-1thread.toml"),
    ),
    ("versions", include_str!("../../studies/versions.toml")),
    ("mysql-pfs", include_str!("../../studies/mysql-pfs.toml")),
    (
        "mysql-pfs-oltp-rw",
        include_str!("../../studies/mysql-pfs-oltp-rw.toml"),
    ),
    (
        "mysql-versions",
        include_str!("../../studies/mysql-versions.toml"),
    ),
    (
        "cached-vs-io",
        include_str!("../../studies/cached-vs-io.toml"),
    ),
    ("io-heavy", include_str!("../../studies/io-heavy.toml")),
    (
        "pg-stat-overhead",
        include_str!("../../studies/pg-stat-overhead.toml"),
    ),
    (
        "pg-versions",
        include_str!("../../studies/pg-versions.toml"),
    ),
    ("pg-sweep", include_str!("../../studies/pg-sweep.toml")),
    (
        "mysql-sweep",
        include_str!("../../studies/mysql-sweep.toml"),
    ),
    (
        "mysql-pfs-builds",
        include_str!("../../studies/mysql-pfs-builds.toml"),
    ),
];

/// The default of a bare `psbench run`.
pub const DEFAULT: &str = "pfs-overhead";

pub fn builtin(name: &str) -> Result<Study> {
    let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name).ok_or_else(|| {
        let names = || BUILTIN.iter().map(|(n, _)| *n);
        match crate::error::did_you_mean(name, names()) {
            Some(near) => usage(format!(
                "unknown study '{name}'; did you mean `{near}`? (not a file, and not a built-in \
                 study: `psbench studies` lists them)"
            )),
            None => usage(format!(
                "unknown study '{name}': not a file, and not one of the built-in studies ({})",
                names().collect::<Vec<_>>().join(", ")
            )),
        }
    })?;
    parse(text, &format!("built-in study {name}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_builtin_parses() {
        for (name, _) in super::BUILTIN {
            let s = super::builtin(name).unwrap();
            assert_eq!(&s.name, name);
        }
        assert!(crate::error::is_usage(&super::builtin("nope").unwrap_err()));
    }

    #[test]
    fn every_file_under_studies_is_built_in() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("studies");
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let name = e.path().file_stem().unwrap().to_string_lossy().to_string();
            assert!(
                super::BUILTIN.iter().any(|(n, _)| *n == name),
                "studies/{name}.toml is not in BUILTIN"
            );
        }
    }
}
