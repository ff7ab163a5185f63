use crate::error::usage;
use crate::server::fetch;
use crate::server::releases;
use crate::server::Flavour;
use anyhow::Result;
use clap::{Args, ValueEnum};

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
    /// Print the releases psbench knows how to fetch, per engine, and which are cached
    #[arg(long, conflicts_with_all = ["product", "release"])]
    list: bool,
}

/// `psbench fetch mysql 8.0.15`: fetch and unpack a release, check it runs, print its basedir.
/// `psbench fetch --list`: what can be fetched.
pub fn command(a: FetchArgs) -> Result<()> {
    if a.list {
        print!("{}", list());
        return Ok(());
    }
    let (Some(product), Some(release)) = (a.product, a.release) else {
        return Err(usage("give an engine and a release, or --list"));
    };
    let flavour = match product {
        Product::Mariadb => Flavour::MariaDb,
        Product::Mysql => Flavour::MySql,
        Product::Postgres => Flavour::Postgres,
    };
    // The release's own name (`mysql-8.0.15`), as a study's `version` writes it.
    let name = releases::Release::of(flavour, &release).name();
    let dir = fetch::release(&name, &fetch::cache_dir(), &mut std::io::stderr())?;
    let bin = crate::server::Binaries::locate(Some(&dir))?;
    eprintln!("{} runs: {}", bin.label(), bin.version);
    println!("{}", dir.display());
    Ok(())
}

/// One line per release: the name a study writes, where it comes from, whether it is cached.
fn list() -> String {
    let cache = fetch::cache_dir();
    let mut out = String::new();
    for r in releases::known() {
        let a = r.artifact().expect("known releases have a jar");
        let state = if fetch::cached(&r, &cache) {
            "cached"
        } else {
            "not fetched"
        };
        out += &format!("{:<16} {:<58} {state}\n", r.name(), a.coordinates());
    }
    out += &format!(
        "Other MariaDB releases that {} publishes are tried as asked (`psbench fetch mariadb X.Y.Z`), \
         and other PostgreSQL releases that {} publishes (`psbench fetch postgres X.Y.0`); cache: {}\n",
        releases::MARIADB_JARS,
        releases::POSTGRES_JARS,
        cache.display()
    );
    out
}
