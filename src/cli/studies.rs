//! `psbench studies`: the built-in studies and the performance_schema scenarios.

use anyhow::Result;

pub fn command() -> Result<()> {
    print!("{}", crate::study::load::catalogue()?);
    Ok(())
}
