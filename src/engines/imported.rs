//! Builds made elsewhere: an archive imported into the cache once its server is checked the
//! way a build made here is (it runs, and its options read back from what its build
//! recorded), and a build a study asks for by source and flag set found from its record, so
//! that it serves after its source has left the mirror and the cache.

use super::{engine_named, Engine};
use crate::builds::archive::{self, Staging};
use crate::builds::builder::Builder;
use crate::builds::{self, cache, toolchain, BuildRecord, SourceSpec};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `psbench build import ARCHIVE`: the archive's build into the cache `builds_dir()`, or a
/// usage error saying why not (nothing left in the cache then).
pub fn import(path: &Path, out: &mut dyn Write) -> Result<PathBuf> {
    let dir = cache::builds_dir();
    let builder = Builder::new()?;
    let staged = match archive::stage(path, &dir, &builder)? {
        Staging::AlreadyThere(there, r) => {
            writeln!(
                out,
                "{}: already in the cache with this server binary (sha256 {}): nothing imported",
                r.name, r.binary_sha256
            )?;
            return Ok(there);
        }
        Staging::Staged(s) => s,
    };
    let r = staged.record.clone();
    let refuse = |e: anyhow::Error| {
        crate::error::usage(format!(
            "{} refused: {}",
            path.display(),
            crate::error::one_line(&e)
        ))
    };
    let engine = engine_named(&r.engine).map_err(refuse)?;
    let tree = BuildRecord::tree(staged.dir());
    let bin = engine
        .build_at(&tree)
        .with_context(|| format!("its tree is not a {} server", engine.name()))
        .map_err(refuse)?;
    let asked: Vec<String> = r.options.iter().chain(&r.extra).cloned().collect();
    let read = engine
        .read_back(staged.dir(), &asked, &bin)
        .with_context(|| format!("its server is not what flag set {} asks for", r.flags))
        .map_err(refuse)?;
    let label = super::label(&bin);
    let dest = staged.keep()?;
    writeln!(out, "read back: {}", read.join("; "))?;
    let here = toolchain::compilers()?;
    writeln!(
        out,
        "imported {}: {label} ({} flags, built on {} in {:.0} s{}), server sha256 {}",
        r.name,
        r.flags,
        r.host,
        r.build_seconds,
        match r.compiler == here {
            true => String::new(),
            false => format!(" with {}, not this host's {here}", r.compiler),
        },
        r.binary_sha256
    )?;
    Ok(dest)
}

/// What the cache has for a request by source and flag set, told from the builds' records
/// alone (no source fetched).
pub enum Recorded {
    /// A build whose record is exactly this request here: this host's compiler (and CPU, for
    /// a native flag set) and the recipe as it is now.
    Found(PathBuf, Box<BuildRecord>),
    /// Builds of this source and flag set made with another compiler: not taken silently.
    OtherCompiler(Vec<BuildRecord>),
    Nothing,
}

/// What a request by source and flag set asks of the cache.
pub struct Asked<'a> {
    pub source: &'a str,
    pub flags: &'a str,
    pub extra: &'a [String],
}

/// The build the cache holds for `req` when its source is a pinned Debian version: the
/// record names the source as the request does and carries its checksum, so the source
/// itself is not needed.
pub fn recorded(req: &Asked, engine: &dyn Engine) -> Result<Recorded> {
    let Ok(SourceSpec::Debian {
        package,
        version: Some(version),
    }) = SourceSpec::parse(req.source)
    else {
        return Ok(Recorded::Nothing);
    };
    let spec = format!("debian:{package}={version}");
    let options: Vec<Vec<String>> = engine
        .flag_set_options(req.flags)?
        .into_iter()
        .map(|(_, o)| o)
        .collect();
    let here = toolchain::compilers()?;
    let mut others = Vec::new();
    for (dir, r) in cache::list(&cache::builds_dir()) {
        let same_recipe = r.source == spec
            && r.flags == req.flags
            && r.extra == *req.extra
            && engine_named(&r.engine).is_ok_and(|e| e.family() == engine.family())
            && r.recipe_version == engine.recipe_version()
            && options.contains(&r.options)
            && r.key == r.key_of_fields();
        if !same_recipe {
            continue;
        }
        if let Some(cpu) = &r.target_cpu {
            if *cpu != toolchain::target_cpu() {
                continue;
            }
        }
        if r.compiler == here {
            return Ok(Recorded::Found(dir, Box::new(r)));
        }
        others.push(r);
    }
    Ok(match others.is_empty() {
        true => Recorded::Nothing,
        false => Recorded::OtherCompiler(others),
    })
}

/// What to say of builds made with another compiler when a request by source and flag set
/// passes them by.
pub fn other_compiler_note(others: &[BuildRecord]) -> String {
    let names: Vec<String> = others
        .iter()
        .map(|r| format!("{} (made with {})", r.name, r.compiler))
        .collect();
    format!(
        "the cache has {} of this source and flag set made with another compiler than this host's, not taken for a build made here; to run it, name it: build = \"{}\"",
        names.join(", "),
        others[0].name
    )
}

/// The build named `name` in the cache (`build = "NAME"`), with its record.
pub fn named(name: &str) -> Result<(PathBuf, BuildRecord)> {
    cache::named(&builds::builds_dir(), name).map_err(|e| {
        crate::error::usage(format!(
            "{}; a build made elsewhere comes in with psbench build import ARCHIVE",
            crate::error::one_line(&e)
        ))
    })
}
