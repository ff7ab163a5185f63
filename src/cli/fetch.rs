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

/// One line per release: the name a study writes, where it comes from, whether it is cached.
fn list() -> String {
    let cache = cache_dir();
    let mut out = String::new();
    for r in engines::releases::known() {
        let a = r.artifact().expect("known releases have a jar");
        let state = if engines::fetch::cached(&r, &cache) {
            "cached"
        } else {
            "not fetched"
        };
        out += &format!("{:<16} {:<58} {state}\n", r.name(), a.coordinates());
    }
    out += &format!(
        "Other MariaDB releases that {} publishes are tried as asked (`psbench fetch mariadb X.Y.Z`), \
         and other PostgreSQL releases that {} publishes (`psbench fetch postgres X.Y.0`); cache: {}\n",
        engines::releases::MARIADB_JARS,
        engines::releases::POSTGRES_JARS,
        cache.display()
    );
    out
}
