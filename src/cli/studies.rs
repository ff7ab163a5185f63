//! `psbench studies`: the built-in studies and the performance_schema scenarios; with
//! `--published`, every figure the built-in studies carry from published studies.

use anyhow::Result;
use clap::Args;

#[derive(Args, Debug)]
pub struct StudiesArgs {
    /// Every figure the built-in studies carry from published studies: by study, with the
    /// built-in study that checks it
    #[arg(long)]
    published: bool,
}

pub fn command(a: StudiesArgs) -> Result<()> {
    match a.published {
        true => print!("{}", crate::study::load::published_catalogue()?),
        false => print!("{}", crate::study::load::catalogue()?),
    }
    Ok(())
}
