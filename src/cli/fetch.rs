use crate::server::fetch;
use anyhow::Result;
use clap::{Args, ValueEnum};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Product {
    Mariadb,
}

#[derive(Args, Debug)]
pub struct FetchArgs {
    /// What to fetch
    product: Product,
    /// Release, e.g. 11.4.5
    #[arg(value_name = "VERSION")]
    release: String,
}

/// `psbench fetch mariadb 11.4.5`: fetch and unpack a release, check it runs, print its basedir.
pub fn command(a: FetchArgs) -> Result<()> {
    let Product::Mariadb = a.product;
    let dir = fetch::mariadb(&a.release, &fetch::cache_dir(), &mut std::io::stderr())?;
    let bin = crate::server::Binaries::locate(Some(&dir))?;
    eprintln!("{} runs: {}", bin.label(), bin.version);
    println!("{}", dir.display());
    Ok(())
}
