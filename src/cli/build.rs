use crate::builds::cache::{builds_dir, listing, remove};
use crate::engines::from_source::{self, engine_named, Request};
use crate::error::usage;
use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BuildArgs {
    #[command(subcommand)]
    archive: Option<ArchiveCommand>,
    /// mariadb, mysql or postgres
    #[arg(required_unless_present_any = ["list", "remove", "flag_sets"])]
    engine: Option<String>,
    /// debian:PACKAGE[=VERSION] (e.g. debian:mariadb, debian:postgresql-15), a source tree, or a
    /// .tar.gz/.tar.xz
    #[arg(required_unless_present_any = ["list", "remove", "flag_sets"])]
    source: Option<String>,
    /// The flag set (`psbench build --flag-sets` lists them)
    #[arg(long, default_value = "release")]
    flags: String,
    /// One more configure or cmake option, after the flag set's (repeatable), e.g.
    /// --extra=-DWITH_DEBUG=ON
    #[arg(long, allow_hyphen_values = true)]
    extra: Vec<String>,
    /// List the builds in the cache: name, source, flags, size, build time and compiler
    #[arg(long, conflicts_with_all = ["engine", "source", "remove"])]
    list: bool,
    /// Remove a build from the cache (its name, or the start of its key)
    #[arg(long, value_name = "NAME", conflicts_with_all = ["engine", "source"])]
    remove: Option<String>,
    /// Only fetch and unpack the source, and print its tree
    #[arg(long, conflicts_with_all = ["list", "remove", "flag_sets", "configure_only"])]
    source_only: bool,
    /// Only run the flag set's configure step, and print the build directory (cmake's
    /// CMakeCache.txt, configure's config.log)
    #[arg(long, conflicts_with_all = ["list", "remove", "flag_sets"])]
    configure_only: bool,
    /// List each engine's flag sets and their exact options
    #[arg(long, conflicts_with_all = ["source", "remove", "list"])]
    flag_sets: bool,
}

/// Builds carried between hosts as archives.
#[derive(Subcommand, Debug)]
enum ArchiveCommand {
    /// Write builds of the cache as archives, one `NAME.tar.xz` each (any tar reads them)
    Export {
        /// A build's name (`psbench build --list`), or the start of its key
        #[arg(required = true)]
        names: Vec<String>,
        /// The directory to write the archives in
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// xz's level, 0 (fastest) to 9 (smallest)
        #[arg(long, default_value_t = crate::builds::archive::XZ_LEVEL)]
        xz_level: u32,
    },
    /// Take archived builds into the cache, each checked first: whole, its record's key,
    /// its server binary's SHA-256, a native build's CPU
    Import {
        #[arg(required = true, value_name = "ARCHIVE")]
        archives: Vec<PathBuf>,
    },
}

/// `psbench build postgres debian:postgresql-15 --flags os`: build (or find in the cache) and
/// print the server tree; `--list`, `--remove NAME`, `--flag-sets`; `export` and `import`.
pub fn command(a: BuildArgs) -> Result<()> {
    let err = &mut std::io::stderr();
    match a.archive {
        Some(ArchiveCommand::Export {
            names,
            out,
            xz_level,
        }) => {
            for name in names {
                let path = crate::builds::archive::export(&builds_dir(), &name, &out, xz_level)?;
                println!("{}", path.display());
            }
            return Ok(());
        }
        Some(ArchiveCommand::Import { archives }) => {
            for archive in archives {
                let dir = crate::engines::imported::import(&archive, err)?;
                println!("{}", dir.display());
            }
            return Ok(());
        }
        None => {}
    }
    if a.list {
        print!(
            "{}",
            listing(&builds_dir(), &crate::builds::toolchain::compilers()?)
        );
        return Ok(());
    }
    if let Some(name) = &a.remove {
        let r = remove(&builds_dir(), name)?;
        eprintln!("removed {}", r.name);
        return Ok(());
    }
    if a.flag_sets {
        print!(
            "{}",
            crate::engines::from_source::flag_set_listing(a.engine.as_deref())?
        );
        return Ok(());
    }
    let (Some(engine), Some(source)) = (a.engine, a.source) else {
        return Err(usage("give an engine and a source, or --list"));
    };
    engine_named(&engine)?;
    let req = Request {
        engine: Some(engine),
        source,
        flags: a.flags,
        extra: a.extra,
        name: None,
    };
    if a.source_only {
        println!("{}", from_source::source_only(&req, err)?.dir.display());
    } else if a.configure_only {
        println!("{}", from_source::configure_only(&req, err)?.display());
    } else {
        let (dir, _) = from_source::build(&req, err)?;
        println!("{}", crate::builds::BuildRecord::tree(&dir).display());
    }
    Ok(())
}
