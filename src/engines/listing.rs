//! What `psbench studies` lists of the engines: each engine's scenarios, with the default
//! consumers of each performance_schema flavour.

use super::mysql::scenarios::{self, PfsFlavour};
use super::postgres::scenarios as pg_scenarios;
use anyhow::Result;
use std::fmt::Write;

/// The scenarios of every engine, one per line.
pub fn scenarios() -> Result<String> {
    let mut s = String::new();
    let flavours: Vec<&str> = PfsFlavour::ALL.iter().map(|f| f.label()).collect();
    let _ = writeln!(
        s,
        "\nperformance_schema scenarios (variant scenario = \"NAME\"), by the same instrument and consumer names on {}:",
        flavours.join(", ")
    );
    for n in scenarios::ALL.iter() {
        let sc = scenarios::scenario(n)?;
        let only = if sc.mariadb_only {
            " (MariaDB only)"
        } else {
            ""
        };
        let _ = writeln!(s, "  {:<30} {}{only}", n, sc.description);
    }
    let _ = writeln!(
        s,
        "\n\"default\" keeps each server's own default consumers, verified exactly:"
    );
    for f in PfsFlavour::ALL {
        let _ = writeln!(
            s,
            "  {:<10} {}",
            f.label(),
            f.default_consumers().join(", ")
        );
    }
    let _ = writeln!(
        s,
        "\nPostgreSQL scenarios (a variant with engine = \"postgres\" or a postgres-… version), \
         read back from pg_settings:"
    );
    for n in pg_scenarios::NAMES {
        let sc = pg_scenarios::scenario(n)?;
        let _ = writeln!(s, "  {:<21} {}", n, sc.description);
    }
    Ok(s)
}
