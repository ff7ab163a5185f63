//! study.toml: the study as run, written beside its results when a run starts (overrides
//! applied, sweeps expanded into one variant per release), so that `psbench run
//! OUTDIR/study.toml` runs the same study again.

use crate::results::study::Study;
use anyhow::{Context, Result};
use std::path::Path;

pub const FILE: &str = "study.toml";

/// The study as a study file's text.
pub fn text(study: &Study) -> Result<String> {
    let body = toml::to_string(study).context("writing the study as TOML")?;
    Ok(format!(
        "# The study as psbench ran it: `psbench run {FILE}` runs it again.\n{body}"
    ))
}

/// Write the study into the results directory `dir`.
pub fn write(dir: &Path, study: &Study) -> Result<()> {
    let path = dir.join(FILE);
    std::fs::write(&path, text(study)?).with_context(|| format!("writing {}", path.display()))
}
