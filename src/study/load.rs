//! Which study a `psbench run` means: a study file, a built-in study by name, or the study of
//! an interrupted results directory; and the catalogue `psbench studies` prints.

use super::builtin;
use super::file::parse;
use crate::error::usage;
use crate::results::study::Study;
use anyhow::Result;
use std::fmt::Write;
use std::path::Path;

/// A study file's path or a built-in study's name (default: the default study), with where it
/// came from (`built-in:NAME` or the path).
pub fn named(name: Option<&str>) -> Result<(Study, String)> {
    let name = name.unwrap_or(builtin::DEFAULT);
    if Path::new(name).is_file() {
        let text =
            std::fs::read_to_string(name).map_err(|e| usage(format!("cannot read {name}: {e}")))?;
        if let Some(why) = server_config(name, &text) {
            return Err(usage(why));
        }
        Ok((parse(&text, name)?, name.to_string()))
    } else if name.ends_with(".toml") {
        Err(usage(format!("study file {name} not found")))
    } else {
        Ok((builtin::builtin(name)?, format!("built-in:{name}")))
    }
}

/// A server's own configuration file given where a study is expected: what it is and where it
/// goes instead. A my.cnf is known by its first group (a study has no `[mysqld]` table), a
/// postgresql.conf by its name.
fn server_config(name: &str, text: &str) -> Option<String> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(';'))?;
    let group = first
        .strip_prefix('[')
        .and_then(|g| g.strip_suffix(']'))
        .map(str::trim);
    let mysql = |g: &str| {
        [
            "mysqld",
            "mariadb",
            "mariadbd",
            "server",
            "client",
            "client-server",
            "galera",
            "mysql",
        ]
        .iter()
        .any(|k| g == *k || g.starts_with(&format!("{k}-")))
    };
    match group {
        Some(g) if mysql(g) => Some(format!(
            "{name} is a my.cnf (its first group is [{g}]), not a study file: name it in a MySQL or MariaDB variant as defaults_file = \"{name}\" (docs/study-file.md, \"Your own configuration file\")"
        )),
        None if name.ends_with("postgresql.conf") => Some(format!(
            "{name} is a postgresql.conf, not a study file: name it in a PostgreSQL variant as config_file = \"{name}\" (docs/study-file.md, \"Your own configuration file\")"
        )),
        _ => None,
    }
}

/// The built-in studies and the performance_schema scenarios, one per line.
pub fn catalogue() -> Result<String> {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Built-in studies (psbench run NAME; the default is {}):",
        builtin::DEFAULT
    );
    let width = builtin::BUILTIN
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(0);
    for (name, _) in builtin::BUILTIN {
        let study = builtin::builtin(name)?;
        let time = match (study.expected_minutes, study.expected_build_minutes) {
            (Some(m), Some(b)) => format!(
                " (about {m:.0} min on a 2-core VM, and {b:.0} min more on the first run, which builds its servers)"
            ),
            (Some(m), None) => format!(" (about {m:.0} min on a 2-core VM)"),
            _ => String::new(),
        };
        let _ = writeln!(s, "  {name:<width$} {}{time}", study.description);
    }
    s.push_str(&crate::engines::listing::scenarios()?);
    Ok(s)
}

/// `psbench studies --published`: per published study, every figure the built-in studies
/// carry from it (new / base, as printed when the study printed the inverse) and the built-in
/// study that checks it, or why it is not measured.
pub fn published_catalogue() -> Result<String> {
    let mut carried: Vec<(String, crate::results::published::Published)> = Vec::new();
    for (name, _) in builtin::BUILTIN {
        let study = builtin::builtin(name)?;
        let base = study.base_variant().to_string();
        for mut p in study.published {
            p.base.get_or_insert_with(|| base.clone());
            carried.push((name.to_string(), p));
        }
    }
    let mut s = String::new();
    let mut total = 0;
    for src in crate::results::sources::SOURCES {
        let of: Vec<&(String, crate::results::published::Published)> = carried
            .iter()
            .filter(|(_, p)| p.source == src.key)
            .collect();
        let n: usize = of.iter().map(|(_, p)| p.count()).sum();
        total += n;
        let _ = writeln!(
            s,
            "{} — {}; {}: {n} figures",
            src.cited(),
            src.server,
            src.host
        );
        for (study, p) in of {
            for i in 0..p.count() {
                let (figure, threads) = p.figure(i).unzip();
                let value = figure.map_or("—".to_string(), |f| f.text());
                let at = crate::results::published::at_threads(&threads.unwrap_or_default());
                let what = match &p.not_measured {
                    Some(why) => format!("not measured here: {why}"),
                    // A ranking names its variants in the figure itself.
                    None if p.variants.is_empty() => format!(
                        "each against {} on {}{at}",
                        p.base.as_deref().unwrap_or("the base"),
                        p.steps.join(", ")
                    ),
                    None => format!(
                        "{} / {} on {}{at}",
                        p.variants.join(", "),
                        p.base.as_deref().unwrap_or("the base"),
                        p.steps.join(", ")
                    ),
                };
                let _ = writeln!(s, "  [{study}] {}: {value}; {what}", p.figure);
            }
        }
    }
    let _ = writeln!(s, "{total} published figures in all.");
    Ok(s)
}
