use crate::engines;
use crate::error::usage;
use crate::server::fetch::cache_dir;
use anyhow::Result;
use clap::{Args, ValueEnum};

/// What a release is of, as its name starts (`mariadb-11.4.5`).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Product {
    Mariadb,
    Mysql,
    Postgres,
}

#[derive(Args, Debug)]
pub struct FetchArgs {
    /// What to fetch
    #[arg(required_unless_present = "list")]
    product: Option<Product>,
    /// Release, e.g. 11.4.5 (mariadb), 8.0.15 (mysql) or 17.2.0 (postgres)
    #[arg(value_name = "VERSION", required_unless_present = "list")]
    release: Option<String>,
    /// Print every release psbench can fetch (of ENGINE, or of every engine): its channel,
    /// whether it is cached and whether it runs here
    #[arg(long, conflicts_with = "release")]
    list: bool,
}

/// `psbench fetch mysql 8.0.15`: fetch and unpack a release, check it runs, print its basedir.
/// `psbench fetch --list [ENGINE]`: what can be fetched, and whether it runs here.
pub fn command(a: FetchArgs) -> Result<()> {
    if a.list {
        let engine = a.product.and_then(|p| p.to_possible_value());
        let list = engines::catalogue::list(engine.as_ref().map(|v| v.get_name()), &cache_dir())?;
        print!("{list}");
        return Ok(());
    }
    let (Some(product), Some(release)) = (a.product, a.release) else {
        return Err(usage("give an engine and a release, or --list"));
    };
    // The release's own name (`mysql-8.0.15`), as a study's `version` writes it.
    let product = product
        .to_possible_value()
        .expect("every product has a name");
    let name = format!("{}-{release}", product.get_name());
    let dir = engines::fetch::release(&name, &cache_dir(), &mut std::io::stderr())?;
    let bin = engines::locate(Some(&dir))?;
    eprintln!("{} runs: {}", engines::label(&bin), bin.version);
    println!("{}", dir.display());
    Ok(())
}
