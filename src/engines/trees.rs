//! Before a study writes anything (and for `--plan`): each variant given a binary tree
//! (`basedir`, in its file or by `--basedir`) has a server of a known family there, and its
//! scenario and settings preset exist on that server. Variants of a release or a build are
//! checked once it is fetched or built (variant::check_scenarios).

use super::{locate_family, variant};
use crate::error::{is_usage, one_line, usage};
use crate::results::study::{Study, Variant};
use crate::server::Binaries;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The first variant whose tree or whose scenario/settings on it is wrong, in one line.
pub fn check(study: &Study) -> Result<()> {
    // Each tree located once: it runs the server's `--version`.
    let mut located: Vec<(PathBuf, Binaries)> = Vec::new();
    let mut refused: Vec<(String, anyhow::Error)> = Vec::new();
    for v in &study.variants {
        let Some(dir) = v.basedir.as_deref() else {
            continue;
        };
        let bin = match located.iter().find(|(d, _)| d == dir) {
            Some((_, b)) => b.clone(),
            None => {
                let b = locate(v, dir)?;
                located.push((dir.to_path_buf(), b.clone()));
                b
            }
        };
        if let Err(e) = runs_on(v, &bin) {
            if !is_usage(&e) {
                return Err(e.context(format!(
                    "checking variant '{}' on {}",
                    v.name,
                    dir.display()
                )));
            }
            refused.push((v.name.clone(), e));
        }
    }
    let Some((name, e)) = refused.first() else {
        return Ok(());
    };
    let others: Vec<&str> = study
        .variants
        .iter()
        .map(|v| v.name.as_str())
        .filter(|n| !refused.iter().any(|(r, _)| r == n))
        .collect();
    let hint = match others.is_empty() {
        true => "no variant of this study runs there".to_string(),
        false => format!(
            "leave such variants out with --variants {}",
            others.join(",")
        ),
    };
    let more = match refused.len() {
        1 => String::new(),
        n => format!(" (and {} more variant(s))", n - 1),
    };
    Err(usage(format!(
        "variant '{name}': {}{more}: {hint}",
        one_line(e)
    )))
}

/// The server at `dir` for variant `v`: a usage error names the variant and the tree.
fn locate(v: &Variant, dir: &Path) -> Result<Binaries> {
    let family = variant::engine(v).family();
    locate_family(Some(family), Some(dir)).map_err(|e| match is_usage(&e) {
        true => usage(format!("variant '{}': {}", v.name, one_line(&e))),
        false => e.context(format!(
            "variant '{}': reading the server in {}",
            v.name,
            dir.display()
        )),
    })
}

/// Whether `v`'s scenario and settings preset exist on `bin`.
fn runs_on(v: &Variant, bin: &Binaries) -> Result<()> {
    let e = variant::engine(v);
    if let Some(s) = &v.scenario {
        e.scenario_available(s, bin)?;
    }
    if let Some(p) = &v.settings {
        e.preset(p, bin)
            .with_context(|| format!("settings '{p}' on {}", super::label(bin)))?;
    }
    Ok(())
}
