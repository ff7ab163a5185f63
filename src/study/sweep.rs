//! A sweep: one variant template measured on many releases (docs/study-file.md#sweeps). When
//! the study is read, a variant with `versions` (or `builds`) becomes one variant per release,
//! named `TEMPLATE-VERSION` and in release order, each fetching its release or building it from
//! a pinned Debian source; a `base` naming the template means its oldest release.

use crate::error::usage;
use crate::results::release_order::{numbers, order};
use crate::results::study::{BuildSpec, Study, VersionSweep};
use anyhow::Result;

/// The releases an engine's channel offers, in release order (`17.2.0`).
pub type Releases<'a> = &'a dyn Fn(&str) -> Result<Vec<String>>;

/// Expand every sweep of `study` (read from `origin`) over the releases `releases` lists.
pub fn expand(study: &mut Study, origin: &str, releases: Releases) -> Result<()> {
    if study
        .variants
        .iter()
        .all(|v| v.versions.is_none() && v.builds.is_empty())
    {
        return Ok(());
    }
    let mut expanded = Vec::new();
    for v in std::mem::take(&mut study.variants) {
        if v.versions.is_none() && v.builds.is_empty() {
            expanded.push(v);
            continue;
        }
        let bad = |what: String| usage(format!("{origin}: variant '{}': {what}", v.name));
        if v.version.is_some() || v.basedir.is_some() || v.build.is_some() {
            return Err(bad(
                "versions and builds name the releases themselves: not with version, basedir or build".into(),
            ));
        }
        let fetched = match &v.versions {
            Some(spec) => resolve(spec, releases).map_err(|e| bad(crate::error::one_line(&e)))?,
            None => Vec::new(),
        };
        let mut channels: Vec<&str> = Vec::new();
        for (release, _) in &fetched {
            let builder = crate::engines::releases::Release::parse(release)
                .map_err(|e| bad(crate::error::one_line(&e)))?
                .builder();
            if !channels.contains(&builder) {
                channels.push(builder);
            }
        }
        let mut built = Vec::new();
        for b in &v.builds {
            let version = built_version(&b.source).map_err(|e| bad(e.to_string()))?;
            built.push((version, b.clone()));
        }
        if !built.is_empty() {
            channels.push(BUILT_HERE);
        }
        if channels.len() > 1 && !v.across_channels {
            return Err(bad(format!(
                "versions spans {} channels ({}): compilers and flags differ as well as the release; add across_channels = true to sweep them anyway",
                channels.len(),
                channels.join("; ")
            )));
        }
        // Fetched and built releases in one release order.
        let mut members: Vec<(String, Option<String>, Option<BuildSpec>)> = fetched
            .into_iter()
            .map(|(release, version)| (version, Some(release), None))
            .chain(
                built
                    .into_iter()
                    .map(|(version, b)| (version, None, Some(b))),
            )
            .collect();
        members.sort_by(|a, b| order(&a.0, &b.0));
        if let Some(w) = members.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(bad(format!("release {} is in the sweep twice", w[0].0)));
        }
        if study.base.as_deref() == Some(v.name.as_str()) {
            study.base = members
                .first()
                .map(|(version, _, _)| format!("{}-{version}", v.name));
        }
        for (version, release, build) in members {
            let mut one = v.clone();
            one.name = format!("{}-{version}", v.name);
            one.version = release;
            one.build = build;
            one.versions = None;
            one.builds = Vec::new();
            one.sweep = Some(v.name.clone());
            expanded.push(one);
        }
    }
    study.variants = expanded;
    Ok(())
}

/// The channel of a sweep's releases built here (beside the fetched ones' builders).
const BUILT_HERE: &str = "built here from source";

/// The upstream release a pinned Debian source builds: `debian:mysql-9.7=9.7.2-4` → `9.7.2`
/// (the epoch and Debian's revision dropped).
fn built_version(source: &str) -> Result<String> {
    let pinned = source
        .strip_prefix("debian:")
        .and_then(|rest| rest.split_once('='))
        .map(|(_, v)| v);
    let Some(v) = pinned else {
        return Err(usage(format!(
            "builds: '{source}' names no release: a sweep builds a pinned Debian source (debian:PACKAGE=VERSION)"
        )));
    };
    let v = v.split_once(':').map_or(v, |(_, v)| v);
    let v = v.rsplit_once('-').map_or(v, |(upstream, _)| upstream);
    Ok(v.to_string())
}

/// The (release name, version) pairs `spec` means, in release order.
fn resolve(spec: &VersionSweep, releases: Releases) -> Result<Vec<(String, String)>> {
    let pairs = match spec {
        VersionSweep::List(list) => {
            let mut out = Vec::new();
            for name in list {
                let (engine, version) = name.split_once('-').ok_or_else(|| {
                    usage(format!(
                        "versions: '{name}' is not a release like postgres-17.2.0"
                    ))
                })?;
                let offered = releases(engine)?;
                if !offered.iter().any(|v| v == version) {
                    return Err(usage(format!(
                        "versions: {name} is not a release psbench can fetch (`psbench fetch --list {engine}`)"
                    )));
                }
                out.push((name.clone(), version.to_string()));
            }
            out.sort_by(|(_, a), (_, b)| order(a, b));
            out
        }
        VersionSweep::Range(text) => {
            let (engine, range) = text.split_once(':').ok_or_else(|| {
                usage(format!(
                    "versions = \"{text}\": write ENGINE:FROM..TO (postgres:15.8.0..17.2.0), ENGINE:* or a list"
                ))
            })?;
            let (from, to) = match range {
                "*" => (Vec::new(), vec![u64::MAX]),
                _ => {
                    let (a, b) = range.split_once("..").ok_or_else(|| {
                        usage(format!("versions = \"{text}\": a range is FROM..TO"))
                    })?;
                    (numbers(a), numbers(b))
                }
            };
            let all = releases(engine)?;
            let inside: Vec<(String, String)> = all
                .into_iter()
                .filter(|v| numbers(v) >= from && numbers(v) <= to)
                .map(|v| (format!("{engine}-{v}"), v))
                .collect();
            if inside.is_empty() {
                return Err(usage(format!(
                    "versions = \"{text}\" holds no release psbench can fetch (`psbench fetch --list {engine}`)"
                )));
            }
            inside
        }
    };
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(engine: &str) -> Result<Vec<String>> {
        match engine {
            "postgres" => Ok(["14.10.0", "15.8.0", "15.10.0", "16.4.0", "17.2.0"]
                .map(String::from)
                .to_vec()),
            "mariadb" => Ok(vec!["11.4.5".to_string()]),
            _ => Err(usage(format!("no releases of {engine} here"))),
        }
    }

    fn study(variants: &str) -> Study {
        let text =
            format!("name = \"s\"\n{variants}\n[[workload]]\nworkload = \"pgbench_select_only\"\n");
        toml::from_str(&text).unwrap()
    }

    #[test]
    fn a_range_becomes_one_variant_per_release_in_order() {
        let mut s = study(
            "base = \"pg\"\n[[variant]]\nname = \"pg\"\nscenario = \"none\"\nversions = \"postgres:15.0..16.9\"",
        );
        expand(&mut s, "s.toml", &offered).unwrap();
        let names: Vec<&str> = s.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["pg-15.8.0", "pg-15.10.0", "pg-16.4.0"]);
        assert_eq!(s.variants[1].version.as_deref(), Some("postgres-15.10.0"));
        assert_eq!(s.variants[1].scenario.as_deref(), Some("none"));
        assert_eq!(s.variants[1].sweep.as_deref(), Some("pg"));
        assert_eq!(s.base.as_deref(), Some("pg-15.8.0"));
        // Every release of the channel.
        let mut all = study("[[variant]]\nname = \"pg\"\nversions = \"postgres:*\"");
        expand(&mut all, "s.toml", &offered).unwrap();
        assert_eq!(all.variants.len(), 5);
    }

    #[test]
    fn a_list_is_checked_against_the_channel_and_sorted() {
        let mut s = study(
            "[[variant]]\nname = \"pg\"\nversions = [\"postgres-17.2.0\", \"postgres-14.10.0\"]",
        );
        expand(&mut s, "s.toml", &offered).unwrap();
        let names: Vec<&str> = s.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["pg-14.10.0", "pg-17.2.0"]);
        // Releases of two builders, when asked for.
        let mut mixed = study(
            "[[variant]]\nname = \"m\"\nacross_channels = true\nversions = [\"postgres-17.2.0\", \"mariadb-11.4.5\"]",
        );
        expand(&mut mixed, "s.toml", &offered).unwrap();
        assert_eq!(mixed.variants.len(), 2);
    }

    #[test]
    fn a_release_built_here_joins_the_fetched_ones_in_release_order() {
        let mut s = study(
            "base = \"pg\"\n[[variant]]\nname = \"pg\"\nacross_channels = true\nversions = [\"postgres-17.2.0\", \"postgres-15.8.0\"]\nbuilds = [{ source = \"debian:postgresql-16=16.9-1\", flags = \"release\" }]",
        );
        expand(&mut s, "s.toml", &offered).unwrap();
        let names: Vec<&str> = s.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["pg-15.8.0", "pg-16.9", "pg-17.2.0"]);
        let built = &s.variants[1];
        assert_eq!(built.version, None);
        let b = built.build.as_ref().unwrap();
        assert_eq!(
            (b.source.as_str(), b.flags.as_str()),
            ("debian:postgresql-16=16.9-1", "release")
        );
        assert_eq!(built.sweep.as_deref(), Some("pg"));
        assert!(s.variants.iter().all(|v| v.builds.is_empty()));
        assert_eq!(s.base.as_deref(), Some("pg-15.8.0"));
        // Built and fetched are two channels: asked for, or refused; an unpinned source names
        // no release.
        for (more, says) in [
            ("", "spans 2 channels (built by the embedded-postgres packager (zonky), not by Debian; built here from source)"),
            ("across_channels = true\nbuilds = [{ source = \"debian:postgresql-16\" }]", "names no release"),
        ] {
            let text = format!("[[variant]]\nname = \"pg\"\nversions = [\"postgres-17.2.0\"]\n{more}");
            let text = match more.is_empty() {
                true => text + "builds = [{ source = \"debian:postgresql-16=16.9-1\" }]",
                false => text,
            };
            let e = expand(&mut study(&text), "s.toml", &offered).unwrap_err();
            assert!(crate::error::one_line(&e).contains(says), "{e}");
        }
    }

    #[test]
    fn mistakes_are_one_line_usage_errors() {
        for (variants, says) in [
            (
                "versions = \"postgres:18.0..18.9\"",
                "holds no release psbench can fetch",
            ),
            (
                "versions = [\"postgres-15.9.0\"]",
                "postgres-15.9.0 is not a release psbench can fetch",
            ),
            ("versions = \"postgres\"", "write ENGINE:FROM..TO"),
            (
                "versions = \"cassandra:*\"",
                "no releases of cassandra here",
            ),
            (
                "versions = \"postgres:*\"\nversion = \"postgres-17.2.0\"",
                "not with version",
            ),
            (
                "versions = [\"postgres-17.2.0\", \"mariadb-11.4.5\"]",
                "versions spans 2 channels",
            ),
        ] {
            let mut s = study(&format!("[[variant]]\nname = \"pg\"\n{variants}"));
            let e = expand(&mut s, "s.toml", &offered).unwrap_err();
            assert!(crate::error::is_usage(&e), "{e}");
            let line = crate::error::one_line(&e);
            assert!(
                line.starts_with("s.toml: variant 'pg': ") && line.contains(says),
                "{line}"
            );
        }
        // A study without a sweep is left as it was, whatever the channel.
        let mut plain = study("[[variant]]\nname = \"a\"");
        expand(&mut plain, "s.toml", &|_| {
            unreachable!("no sweep, no channel read")
        })
        .unwrap();
        assert_eq!(plain.variants.len(), 1);
    }
}
