//! `psbench merge DIR… --out DIR`: join the shards of one study, run on several hosts with
//! `psbench run --shard`, into one results document, and write its report (docs/sharding.md).

use crate::report::{render::publish, Subject};
use crate::results::merge::{merge, Part};
use crate::results::StudyResults;
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' results directories (or their results.json)
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Where the merged results document and its report go
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    export: super::report::ExportArgs,
}

pub fn command(a: MergeArgs, history: &std::path::Path) -> Result<()> {
    let exports = a.export.exports();
    exports.check()?;
    let same = |p: &PathBuf| match (p.canonicalize(), a.out.canonicalize()) {
        (Ok(x), Ok(y)) => x == y || x.parent() == Some(y.as_path()),
        _ => false,
    };
    if let Some(p) = a.shards.iter().find(|p| same(p)) {
        return Err(crate::error::usage(format!(
            "--out {}: that is the shard {}; the merged document goes to a directory of its own",
            a.out.display(),
            p.display()
        )));
    }
    let parts = a
        .shards
        .iter()
        .map(|dir| {
            Ok(Part {
                path: dir.display().to_string(),
                doc: StudyResults::load(dir)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let merged = merge(parts)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    merged.save(&a.out)?;
    let subject = Subject::study(merged, &a.out.display().to_string());
    publish::study_finished(&subject, &a.out)?;
    exports.write(
        &subject,
        Some(&a.out.join(crate::results::document::FILE_NAME)),
    )?;
    crate::history::add_finished(&subject.results, &a.out, history)
}
