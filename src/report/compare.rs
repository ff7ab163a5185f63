//! `psbench compare A B`: two results documents (say before and after an upgrade) as the
//! variants of one study. A's variants are the bases and B's the new ones, renamed "A:v" and
//! "B:v"; cells match on (step, threads, variant).

use crate::error::usage;
use crate::report::subject::{variants, Pair, Source, Subject};
use crate::results::StudyResults;
use anyhow::Result;
use std::collections::BTreeSet;

fn renamed(side: &str, v: &str) -> String {
    format!("{side}:{v}")
}

/// Prefix every variant name of a document with its side.
fn relabel(mut r: StudyResults, side: &str) -> StudyResults {
    for v in &mut r.study.variants {
        v.name = renamed(side, &v.name);
    }
    if let Some(b) = &mut r.study.base {
        *b = renamed(side, b);
    }
    for c in &mut r.cells {
        c.key.variant = renamed(side, &c.key.variant);
    }
    for c in &mut r.cost {
        c.variant = renamed(side, &c.variant);
    }
    r.variants = std::mem::take(&mut r.variants)
        .into_iter()
        .map(|(k, v)| (renamed(side, &k), v))
        .collect();
    r.notes = r.notes.iter().map(|n| format!("{side}: {n}")).collect();
    for p in &mut r.host_probes {
        p.host = format!("{side}: {}", p.host);
    }
    r
}

/// (step, threads, variant) of throughput cells.
type CellKeys = BTreeSet<(String, u32, String)>;
/// (step, variant) of cost results.
type CostKeys = BTreeSet<(String, String)>;

fn keys(r: &StudyResults) -> (CellKeys, CostKeys) {
    (
        r.cells
            .iter()
            .map(|c| (c.key.step.clone(), c.key.threads, c.key.variant.clone()))
            .collect(),
        r.cost
            .iter()
            .map(|c| (c.step.clone(), c.variant.clone()))
            .collect(),
    )
}

pub fn merge(a: StudyResults, a_path: &str, b: StudyResults, b_path: &str) -> Result<Subject> {
    if serde_json::to_value(&a)? == serde_json::to_value(&b)? {
        return Err(usage(format!(
            "{a_path} and {b_path} are the same results (identical documents: nothing to compare)"
        )));
    }
    let (a_cells, a_cost) = keys(&a);
    let (b_cells, b_cost) = keys(&b);
    if a_cells.is_disjoint(&b_cells) && a_cost.is_disjoint(&b_cost) {
        return Err(usage(format!(
            "nothing to compare: {a_path} and {b_path} share no (step, threads, variant) \
             (A has variants {:?}, B has {:?})",
            variants(&a),
            variants(&b)
        )));
    }
    let sources = vec![Source::of("A", a_path, &a), Source::of("B", b_path, &b)];
    let (a_variants, b_variants) = (variants(&a), variants(&b));
    let mut notes = Vec::new();
    if a.study.threshold != b.study.threshold {
        notes.push(format!(
            "A calls changes beyond {:.1}%, B beyond {:.1}%; this comparison uses A's.",
            a.study.threshold * 100.0,
            b.study.threshold * 100.0
        ));
    }
    let (a, b) = (relabel(a, "A"), relabel(b, "B"));
    let mut merged = a.clone();
    merged.study.name = format!("{} vs {}", a.study.name, b.study.name);
    merged.study.description = format!("A = {a_path}, B = {b_path}");
    merged.origin = format!("compare {a_path} {b_path}");
    // Each A variant followed by its B counterpart, then B's own.
    merged.study.variants.clear();
    for v in &a.study.variants {
        merged.study.variants.push(v.clone());
        let counterpart = renamed("B", v.name.trim_start_matches("A:"));
        if let Some(bv) = b.study.variants.iter().find(|x| x.name == counterpart) {
            merged.study.variants.push(bv.clone());
        }
    }
    for v in &b.study.variants {
        if !merged.study.variants.iter().any(|x| x.name == v.name) {
            merged.study.variants.push(v.clone());
        }
    }
    for w in &b.study.workloads {
        if !merged
            .study
            .workloads
            .iter()
            .any(|x| x.label() == w.label())
        {
            merged.study.workloads.push(w.clone());
        }
    }
    merged.study.rounds = a.study.rounds.max(b.study.rounds);
    merged.cells.extend(b.cells);
    merged.cost.extend(b.cost);
    merged.variants.extend(b.variants);
    merged.host_probes.extend(b.host_probes);
    merged.notes = notes.into_iter().chain(a.notes).chain(b.notes).collect();
    let pairs = a_variants
        .iter()
        .filter(|v| b_variants.contains(v))
        .map(|v| Pair {
            new: renamed("B", v),
            base: renamed("A", v),
        })
        .collect();
    Ok(Subject {
        results: merged,
        pairs,
        sources,
        running: None,
    })
}
