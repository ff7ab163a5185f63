//! After a study: a flame graph per profiled cell, a differential per variant against the
//! base (same step, threads and round) in CPU per transaction, and the table of the frames
//! that grew most per transaction (kept in the results document; the report renders it).

use super::fold::{self, Folded};
use super::sampler::{cell_stem, DIR};
use super::{flame, growth, per_txn, symbols};
use crate::results::document::CellProfile;
use crate::results::{CellKey, CellResult, FrameGrowth, FramesThatGrew, StudyResults};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// Rows of each "frames that grew" table.
pub const TOP: usize = 15;

struct Profiled<'a> {
    key: &'a CellKey,
    profile: &'a CellProfile,
    folded: Folded,
}

fn load<'a>(res: &'a StudyResults, dir: &Path) -> Result<Vec<Profiled<'a>>> {
    res.cells
        .iter()
        .filter(|c| c.ok)
        .filter_map(|c: &CellResult| c.profile.as_ref().map(|p| (&c.key, p)))
        .map(|(key, profile)| {
            let path = dir.join(&profile.folded);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading the profile {}", path.display()))?;
            Ok(Profiled {
                key,
                profile,
                folded: fold::parse(&text).with_context(|| path.display().to_string())?,
            })
        })
        .collect()
}

fn per_txn_of(p: &Profiled) -> per_txn::PerTxn {
    per_txn::per_transaction(&p.folded, p.profile.transactions)
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn threads_text(n: u32) -> String {
    format!("{n} thread{}", if n == 1 { "" } else { "s" })
}

/// What the results document keeps of the profiles.
#[derive(Default)]
pub struct Outputs {
    /// What the reader must see (unresolved server frames, nothing sampled).
    pub notes: Vec<String>,
    /// `None` when no cell was profiled.
    pub frames_that_grew: Option<Vec<FramesThatGrew>>,
}

/// Write every flame graph and differential into `dir/profiles`; returns what the results
/// document keeps (the "frames that grew" tables are rendered by the report).
pub fn write_all(res: &StudyResults, dir: &Path) -> Result<Outputs> {
    let cells = load(res, dir)?;
    if cells.is_empty() {
        let asked = res.study.profile.enabled;
        let refused = res.notes.iter().any(|n| n.contains("not taken"));
        let notes = if asked && !refused && !res.cells.is_empty() {
            vec![
                "profiles were asked for, but no measured cell matched the profile selection \
                  (threads, steps, rounds), so none was taken"
                    .into(),
            ]
        } else {
            Vec::new()
        };
        return Ok(Outputs {
            notes,
            frames_that_grew: None,
        });
    }
    let out = dir.join(DIR);
    let base = res.study.base_variant();
    for c in &cells {
        let stem = cell_stem(c.key);
        let p = per_txn_of(c);
        write(
            &out.join(format!("{stem}.per-txn.folded")),
            per_txn::render(&p),
        )?;
        let lines: Vec<String> = per_txn::render(&p).lines().map(String::from).collect();
        if lines.is_empty() {
            continue;
        }
        let title = format!(
            "{}: {}, {}, round {}",
            c.key.variant,
            c.key.step,
            threads_text(c.key.threads),
            c.key.round + 1
        );
        let subtitle = format!(
            "{} samples at {} Hz over {} transactions: {:.1} µs of server CPU per transaction",
            c.profile.samples,
            c.profile.frequency,
            c.profile.transactions,
            per_txn::total(&p) / 1000.0
        );
        write(
            &out.join(format!("{stem}.svg")),
            flame::svg(&lines, &title, &subtitle)?,
        )?;
        if c.key.variant == base {
            continue;
        }
        let Some(b) = cells.iter().find(|b| {
            b.key.variant == base
                && (b.key.round, &b.key.step, b.key.threads)
                    == (c.key.round, &c.key.step, c.key.threads)
        }) else {
            continue;
        };
        let diff = per_txn::differential(&per_txn_of(b), &p);
        write(
            &out.join(format!("{stem}.vs-{base}.diff.folded")),
            diff.iter().map(|l| format!("{l}\n")).collect::<String>(),
        )?;
        let title = format!("{title}: {} against {base}, per transaction", c.key.variant);
        let subtitle = "widths: the variant's CPU per transaction; red grew, blue shrank per transaction (not in share)";
        write(
            &out.join(format!("{stem}.vs-{base}.diff.svg")),
            flame::svg(&diff, &title, subtitle)?,
        )?;
    }
    Ok(Outputs {
        notes: unresolved_notes(res, &cells),
        frames_that_grew: Some(frames_that_grew(res, &cells)),
    })
}

/// A variant's and the base's stacks and transactions, pooled over rounds.
#[derive(Default)]
struct Pair {
    base: Folded,
    base_txns: u64,
    variant: Folded,
    variant_txns: u64,
}

/// Pooled over the profiled rounds where both the variant and the base were sampled.
fn frames_that_grew(res: &StudyResults, cells: &[Profiled]) -> Vec<FramesThatGrew> {
    let base = res.study.base_variant();
    let mut pairs: BTreeMap<(String, u32, String), Pair> = BTreeMap::new();
    for c in cells.iter().filter(|c| c.key.variant != base) {
        let Some(b) = cells.iter().find(|b| {
            b.key.variant == base
                && (b.key.round, &b.key.step, b.key.threads)
                    == (c.key.round, &c.key.step, c.key.threads)
        }) else {
            continue;
        };
        let e = pairs
            .entry((c.key.step.clone(), c.key.threads, c.key.variant.clone()))
            .or_default();
        fold::merge(&mut e.base, &b.folded);
        e.base_txns += b.profile.transactions;
        fold::merge(&mut e.variant, &c.folded);
        e.variant_txns += c.profile.transactions;
    }
    pairs
        .into_iter()
        .map(|((step, threads, variant), pair)| {
            let b = per_txn::per_transaction(&pair.base, pair.base_txns);
            let v = per_txn::per_transaction(&pair.variant, pair.variant_txns);
            FramesThatGrew {
                variant,
                base: base.to_string(),
                step,
                threads,
                base_ns_per_txn: per_txn::total(&b),
                variant_ns_per_txn: per_txn::total(&v),
                base_transactions: pair.base_txns,
                variant_transactions: pair.variant_txns,
                frames: growth::grew_most(&b, &v, TOP)
                    .into_iter()
                    .map(|g| FrameGrowth {
                        frame: g.frame,
                        self_base_ns: g.base.self_ns,
                        self_variant_ns: g.variant.self_ns,
                        total_base_ns: g.base.total_ns,
                        total_variant_ns: g.variant.total_ns,
                    })
                    .collect(),
            }
        })
        .collect()
}

/// One note per server binary whose frames are largely unresolved, naming its variants.
fn unresolved_notes(res: &StudyResults, cells: &[Profiled]) -> Vec<String> {
    let mut worst: BTreeMap<String, (Vec<&str>, f64)> = BTreeMap::new();
    for c in cells {
        if c.profile.unresolved_share < symbols::NOTE_SHARE {
            continue;
        }
        let binary = res
            .variants
            .get(&c.key.variant)
            .map(|p| p.server_binary.clone())
            .unwrap_or_else(|| "mariadbd".into());
        let w = worst.entry(binary).or_default();
        if !w.0.contains(&c.key.variant.as_str()) {
            w.0.push(&c.key.variant);
        }
        w.1 = w.1.max(c.profile.unresolved_share);
    }
    worst
        .into_iter()
        .map(|(binary, (variants, share))| {
            symbols::note(&variants.join(", "), Path::new(&binary), share)
        })
        .collect()
}
