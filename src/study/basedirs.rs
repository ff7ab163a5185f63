//! `psbench run STUDY --basedir PATH` (every variant) or `--basedir VARIANT=PATH` (one, and
//! repeatable): a variant's `basedir` key set from the command line. A variant gives one of
//! basedir, version and build, so the ones it sets lose their version and build.

use crate::error::{is_usage, one_line, suggestion, usage};
use crate::results::study::Study;
use anyhow::Result;
use std::path::PathBuf;

/// One `--basedir` value: the variant it is for (`None`: every variant) and the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Basedir {
    pub variant: Option<String>,
    pub path: PathBuf,
}

impl Basedir {
    /// `PATH` or `VARIANT=PATH`: a `=` before any `/` names a variant, so that a path holding
    /// `=` (`/opt/a=b`) is still a path.
    pub fn parse(spec: &str) -> Result<Basedir> {
        let (variant, path) = match spec.split_once('=') {
            Some((v, p)) if !v.contains('/') => (Some(v.to_string()), p),
            _ => (None, spec),
        };
        if variant.as_deref() == Some("") || path.is_empty() {
            return Err(usage(format!(
                "--basedir '{spec}': give PATH (every variant) or VARIANT=PATH"
            )));
        }
        // Absolute, so that the study.toml a run writes runs again from anywhere.
        let path =
            std::path::absolute(path).map_err(|e| usage(format!("--basedir '{spec}': {e}")))?;
        Ok(Basedir { variant, path })
    }
}

/// Set the variants' trees: one for all first, then each variant's own, which wins.
pub fn apply(specs: &[Basedir], s: &mut Study) -> Result<()> {
    let all: Vec<&Basedir> = specs.iter().filter(|b| b.variant.is_none()).collect();
    if all.len() > 1 {
        return Err(usage(format!(
            "--basedir given {} paths for every variant ({}, {}): give one, or VARIANT=PATH for each",
            all.len(),
            all[0].path.display(),
            all[1].path.display()
        )));
    }
    let names: Vec<String> = s.variants.iter().map(|v| v.name.clone()).collect();
    for b in specs {
        let Some(n) = &b.variant else { continue };
        if !names.contains(n) {
            return Err(usage(format!(
                "--basedir {n}={}: no variant '{n}' in study {}{} (it has: {})",
                b.path.display(),
                s.name,
                suggestion(n, names.iter().map(String::as_str)),
                names.join(", ")
            )));
        }
        if specs
            .iter()
            .filter(|o| o.variant.as_ref() == Some(n))
            .count()
            > 1
        {
            return Err(usage(format!(
                "--basedir {n}=…: variant '{n}' is given more than one tree"
            )));
        }
    }
    for v in &mut s.variants {
        let own = specs.iter().find(|b| b.variant.as_ref() == Some(&v.name));
        if let Some(b) = own.or(all.first().copied()) {
            v.basedir = Some(b.path.clone());
            v.version = None;
            v.build = None;
        }
    }
    if specs.is_empty() {
        return Ok(());
    }
    // The trees may be of another engine than the study's own: the line says which option.
    crate::engines::study_checks::check(s).map_err(|e| match is_usage(&e) {
        true => usage(format!("--basedir: {}", one_line(&e))),
        false => e.context("checking the study's variants on their --basedir trees"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_s_tree_wins_over_every_variant_s() {
        let mut s = crate::study::builtin::builtin("pfs-overhead").unwrap();
        let specs = [
            Basedir::parse("/opt/all").unwrap(),
            Basedir::parse("ps_off=/opt/a=b").unwrap(),
        ];
        apply(&specs, &mut s).unwrap();
        let of = |n: &str| {
            s.variants
                .iter()
                .find(|v| v.name == n)
                .unwrap()
                .basedir
                .clone()
        };
        assert_eq!(of("ps_off"), Some(PathBuf::from("/opt/a=b")));
        assert_eq!(of("default"), Some(PathBuf::from("/opt/all")));
        assert_eq!(
            Basedir::parse("/opt/a=b").unwrap().variant,
            None,
            "a = after a / is the path's"
        );
    }

    #[test]
    fn an_unknown_variant_names_the_study_s() {
        let mut s = crate::study::builtin::builtin("pfs-overhead").unwrap();
        let e = apply(&[Basedir::parse("nosuch=/x").unwrap()], &mut s).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(e.to_string().contains("it has: ps_off, default"), "{e}");
        assert!(Basedir::parse("=/x").is_err() && Basedir::parse("v=").is_err());
    }

    #[test]
    fn a_tree_clears_the_variant_s_release() {
        let mut s = crate::study::builtin::builtin("pfs-overhead").unwrap();
        s.variants[0].version = Some("mysql-8.0.15".into());
        apply(&[Basedir::parse("/opt/t").unwrap()], &mut s).unwrap();
        assert_eq!(s.variants[0].version, None);
        assert_eq!(s.variants[0].basedir, Some(PathBuf::from("/opt/t")));
    }
}
