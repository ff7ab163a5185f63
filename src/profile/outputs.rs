//! After a study: a flame graph per profiled cell, a differential per variant against the
//! base (same step, threads and round) in CPU per transaction, and the table of the frames
//! that grew most per transaction (`profiles/summary.md`).

use super::fold::{self, Folded};
use super::sampler::{cell_stem, DIR};
use super::{flame, growth, per_txn, symbols};
use crate::results::document::CellProfile;
use crate::results::{CellKey, CellResult, StudyResults};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

pub const SUMMARY: &str = "summary.md";
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

/// Write every profile output into `dir/profiles`; returns the notes the reader must see
/// (unresolved server frames) for the results document.
pub fn write_all(res: &StudyResults, dir: &Path) -> Result<Vec<String>> {
    let cells = load(res, dir)?;
    if cells.is_empty() {
        let asked = res.study.profile.enabled;
        let refused = res.notes.iter().any(|n| n.contains("not taken"));
        return Ok(if asked && !refused && !res.cells.is_empty() {
            vec![
                "profiles were asked for, but no measured cell matched the profile selection \
                  (threads, steps, rounds), so none was taken"
                    .into(),
            ]
        } else {
            Vec::new()
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
    write(&out.join(SUMMARY), summary(res, &cells))?;
    Ok(unresolved_notes(res, &cells))
}

/// The "frames that grew" tables of a results directory, or `None` when nothing was profiled.
pub fn summary_of(res: &StudyResults, dir: &Path) -> Result<Option<String>> {
    let cells = load(res, dir)?;
    Ok((!cells.is_empty()).then(|| summary(res, &cells)))
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
fn summary(res: &StudyResults, cells: &[Profiled]) -> String {
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
    let mut s = String::from("## Frames that grew per transaction\n\n");
    if pairs.is_empty() {
        s += &format!("No variant has a profile to compare with the base ({base}).\n");
        return s;
    }
    s += &format!(
        "Server CPU per transaction in µs: the CPU time of perf's cpu-clock samples in each frame, \
         divided by the transactions of the sampled window, against the base {base}. \
         self: the frame is running; total: the frame is on the stack. \
         Frames named [binary] have no symbol. Flame graphs: {DIR}/*.svg, differentials {DIR}/*.diff.svg.\n"
    );
    for ((step, threads, variant), pair) in &pairs {
        let (bt, vt) = (pair.base_txns, pair.variant_txns);
        let b = per_txn::per_transaction(&pair.base, bt);
        let v = per_txn::per_transaction(&pair.variant, vt);
        let (tb, tv) = (per_txn::total(&b), per_txn::total(&v));
        s += &format!(
            "\n### {variant} against {base}: {step}, {}\n\n\
             Sampled server CPU per transaction: {base} {:.1} µs ({bt} transactions), \
             {variant} {:.1} µs ({vt} transactions), {:+.1}%.\n\n",
            threads_text(*threads),
            tb / 1000.0,
            tv / 1000.0,
            if tb > 0.0 {
                (tv / tb - 1.0) * 100.0
            } else {
                0.0
            },
        );
        let rows = growth::grew_most(&b, &v, TOP);
        if rows.is_empty() {
            s += "No frame grew.\n";
        } else {
            s += &growth::markdown(&rows, base, variant);
        }
    }
    s
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

/// The "frames that grew" section for the study's Markdown summary: `None` when no cell
/// was profiled. `results_path` is the results directory or its results.json.
pub fn report_section(res: &StudyResults, results_path: &Path) -> Option<String> {
    if !res.cells.iter().any(|c| c.ok && c.profile.is_some()) {
        return None;
    }
    let dir = if results_path.is_dir() {
        results_path
    } else {
        results_path.parent().unwrap_or(Path::new("."))
    };
    Some(match summary_of(res, dir) {
        Ok(Some(s)) => s,
        Ok(None) => return None,
        Err(e) => format!(
            "## Frames that grew per transaction\n\nThe profiles beside the results could not be read: {e:#}\n"
        ),
    })
}
