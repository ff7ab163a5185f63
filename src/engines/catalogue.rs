//! Every release psbench can get, per engine, as `psbench fetch --list` prints it: the name a
//! study writes, the channel it comes from, whether it is cached, and whether it runs here —
//! yes, no with the reason, or untried — remembered from earlier fetches, so that nothing is
//! downloaded to find out.

use super::releases::{self, Release};
use super::runs_here::{runs_here, RunsHere};
use crate::results::release_order::{numbers, order};
use crate::results::Flavour;
use anyhow::Result;
use std::path::Path;
use std::process::Command;

/// The Maven Central repository psbench lists releases from.
const MAVEN_CENTRAL: &str = "https://repo1.maven.org/maven2";

/// The versions a Maven artifact publishes (`group:artifact`), from its maven-metadata.xml;
/// only release numbers (`17.2.0`, not `10.5.0-1` repackagings).
fn published(coordinates: &str) -> Result<Vec<String>> {
    let (group, artifact) = coordinates
        .split_once(':')
        .ok_or_else(|| anyhow::anyhow!("'{coordinates}' is not group:artifact"))?;
    let url = format!(
        "{MAVEN_CENTRAL}/{}/{artifact}/maven-metadata.xml",
        group.replace('.', "/")
    );
    let out = Command::new("curl")
        .args(["-fsS", "--max-time", "20", &url])
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run curl ({e})"))?;
    if !out.status.success() {
        anyhow::bail!("{url}: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(versions_in(&String::from_utf8_lossy(&out.stdout)))
}

/// The `<version>` entries of a maven-metadata.xml that are plain release numbers.
fn versions_in(xml: &str) -> Vec<String> {
    xml.split("<version>")
        .skip(1)
        .filter_map(|s| {
            s.split_once("</version>")
                .map(|(v, _)| v.trim().to_string())
        })
        .filter(|v| Release::parse(v).is_ok())
        .collect()
}

/// Every release of `engine` (`mariadb`, `mysql`, `postgres`) psbench can fetch, as plain
/// versions (`17.2.0`) in release order: those it knows and, for MariaDB and PostgreSQL,
/// every one their artifact publishes (an error when Maven Central cannot be read).
pub fn releases(engine: &str) -> Result<Vec<String>> {
    let (flavour, channel) = match engine {
        "mariadb" => (Flavour::MariaDb, Some(releases::MARIADB_JARS)),
        "mysql" => (Flavour::MySql, None),
        "postgres" => (Flavour::Postgres, Some(releases::POSTGRES_JARS)),
        other => {
            return Err(crate::error::usage(format!(
                "'{other}' is not an engine psbench fetches: mariadb, mysql or postgres"
            )))
        }
    };
    let mut versions: Vec<String> = releases::known()
        .into_iter()
        .filter(|r| r.flavour == flavour)
        .map(|r| r.version)
        .collect();
    if let Some(c) = channel {
        versions.extend(published(c)?);
    }
    versions.sort_by(|a, b| order(a, b));
    versions.dedup();
    Ok(versions)
}

/// The releases psbench can fetch strictly between releases `lo` and `hi` (names like
/// `postgres-15.1.0`), in release order, of `hi`'s release line only: between 15.19 and
/// 16.4 that is 16.0 to 16.3, since 15.19 came out after 16.0 and a change new in 16 is
/// first carried by a 16 release. Bisection measures these to locate a change.
pub fn between(lo: &str, hi: &str) -> Result<Vec<String>> {
    let (lo, hi) = (Release::parse(lo)?, Release::parse(hi)?);
    let line = |v: &str| {
        let n = numbers(v);
        // PostgreSQL numbers its major releases with one number from 10 on, two before.
        let k = if hi.flavour == Flavour::Postgres && n.first().is_some_and(|m| *m >= 10) {
            1
        } else {
            2
        };
        n.into_iter().take(k).collect::<Vec<_>>()
    };
    let engine = hi.engine();
    Ok(releases(engine)?
        .into_iter()
        .filter(|v| {
            order(v, &lo.version).is_gt()
                && order(v, &hi.version).is_lt()
                && line(v) == line(&hi.version)
        })
        .map(|v| format!("{engine}-{v}"))
        .collect())
}

/// The releases of engine `engine` (`mariadb`, `mysql`, `postgres`, or every engine), one
/// line each, newest first.
pub fn list(engine: Option<&str>, cache: &Path) -> Result<String> {
    let mut out = String::new();
    let mut notes = Vec::new();
    for (name, flavour) in [
        ("mariadb", Flavour::MariaDb),
        ("mysql", Flavour::MySql),
        ("postgres", Flavour::Postgres),
    ] {
        if engine.is_some_and(|e| e != name) {
            continue;
        }
        let versions: Vec<String> = match releases(name) {
            Ok(v) => v.into_iter().rev().collect(),
            Err(e) => {
                notes.push(format!(
                    "{name}: only the releases psbench knows are listed ({})",
                    crate::error::one_line(&e)
                ));
                releases::known()
                    .into_iter()
                    .filter(|r| r.flavour == flavour)
                    .map(|r| r.version)
                    .collect()
            }
        };
        if let Some(v) = versions.first() {
            out += &format!("{name} ({}):\n", Release::of(flavour, v).builder());
        }
        for v in versions {
            let r = Release::of(flavour, &v);
            out += &line(&r, cache);
        }
    }
    for n in notes {
        out += &format!("note: {n}\n");
    }
    out += &format!(
        "runs here: yes or no as psbench found when it last fetched the release (its server's --version ran and was the release), untried before that; cache: {}\n",
        cache.display()
    );
    Ok(out)
}

fn line(r: &Release, cache: &Path) -> String {
    let coordinates = r.artifact().map(|a| a.coordinates()).unwrap_or_default();
    let cached = if super::fetch::cached(r, cache) {
        "cached"
    } else {
        "not fetched"
    };
    let runs = match runs_here(cache, r) {
        RunsHere::Yes => "runs here: yes".to_string(),
        RunsHere::No(why) => format!("runs here: no ({why})"),
        RunsHere::Untried => "runs here: untried".to_string(),
    };
    format!(
        "  {:<17} {:<66} {cached:<11} {runs}\n",
        r.name(),
        coordinates
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_numbers_are_read_from_maven_metadata() {
        let xml = "<metadata><versioning><versions><version>9.6.10</version>\
                   <version>10.5.0-1</version><version>17.2.0</version></versions></versioning></metadata>";
        assert_eq!(versions_in(xml), ["9.6.10", "17.2.0"]);
    }

    #[test]
    fn a_release_is_listed_with_what_its_last_fetch_showed() {
        let cache = tempfile::tempdir().unwrap();
        let r = Release::parse("mariadb-10.1.8").unwrap();
        assert!(line(&r, cache.path()).ends_with("not fetched runs here: untried\n"));
        super::super::runs_here::remember(cache.path(), &r, &Ok(std::path::PathBuf::from("/x")));
        let l = line(&r, cache.path());
        assert!(
            l.starts_with("  mariadb-10.1.8 ") && l.ends_with("not fetched runs here: yes\n"),
            "{l}"
        );
    }
}
