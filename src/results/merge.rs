//! `psbench merge`: the shards of one study, run on several hosts, joined into one results
//! document that `report` and `compare` read as any other (docs/sharding.md). Documents that
//! are not parts of one study are refused in one line, naming what differs.

use super::shard::{MergedPart, Sharding};
use super::{Origin, StudyResults};
use crate::error::usage;
use anyhow::Result;
use std::collections::BTreeMap;

/// One document to merge and where it was read from.
pub struct Part {
    pub path: String,
    pub doc: StudyResults,
}

/// The rounds a document holds: those of its cells and of its round records.
fn rounds_of(doc: &StudyResults) -> Vec<u32> {
    let mut r: Vec<u32> = doc
        .cells
        .iter()
        .map(|c| c.key.round)
        .chain(doc.sharding.rounds.iter().map(|r| r.round))
        .collect();
    r.sort_unstable();
    r.dedup();
    r
}

/// Check that `parts` are shards of one study, then join them: every cell and round record,
/// the cost results of the first part that has them (and, when several ran cost mode, how
/// far their counts agree), every note once.
pub fn merge(mut parts: Vec<Part>) -> Result<StudyResults> {
    if parts.len() < 2 {
        return Err(usage("merge needs at least two results directories"));
    }
    parts.sort_by_key(|p| p.doc.sharding.shard.map_or(0, |s| s.index));
    check(&parts)?;
    let first = &parts[0].doc;
    let mut out = first.clone();
    out.cells.clear();
    out.cost.clear();
    out.notes.clear();
    out.host_probes.clear();
    out.sharding = Sharding {
        definition_sha256: first.sharding.definition_sha256.clone(),
        ..Sharding::default()
    };
    let mut cost_from: Option<usize> = None;
    for (i, p) in parts.iter().enumerate() {
        let d = &p.doc;
        out.cells.extend(d.cells.iter().cloned());
        out.sharding
            .rounds
            .extend(d.sharding.rounds.iter().cloned());
        for (name, prov) in &d.variants {
            out.variants
                .entry(name.clone())
                .or_insert_with(|| prov.clone());
        }
        for n in &d.notes {
            if !out.notes.contains(n) {
                out.notes.push(n.clone());
            }
        }
        for hp in &d.host_probes {
            if !out.host_probes.iter().any(|p| p.host == hp.host) {
                out.host_probes.push(hp.clone());
            }
        }
        for ds in &d.datasets {
            if !out.datasets.contains(ds) {
                out.datasets.push(ds.clone());
            }
        }
        if cost_from.is_none() && !d.cost.is_empty() {
            cost_from = Some(i);
            out.cost = d.cost.clone();
        }
        out.started_unix = out.started_unix.min(d.started_unix);
        out.finished_unix = out.finished_unix.max(d.finished_unix);
        let binaries = d
            .variants
            .iter()
            .filter(|(name, prov)| {
                first
                    .variants
                    .get(*name)
                    .is_some_and(|f| f.server_sha256 != prov.server_sha256)
            })
            .map(|(name, prov)| (name.clone(), prov.server_sha256.clone()))
            .collect();
        out.sharding.parts.push(MergedPart {
            path: p.path.clone(),
            shard: d.sharding.shard,
            host: d.host.hostname.clone(),
            seed: d.seed,
            rounds: rounds_of(d),
            cost_kept: cost_from == Some(i),
            binaries,
        });
    }
    out.cells.sort_by(|a, b| {
        (a.key.round, &a.key.variant, &a.key.step, a.key.threads).cmp(&(
            b.key.round,
            &b.key.variant,
            &b.key.step,
            b.key.threads,
        ))
    });
    out.sharding.rounds.sort_by_key(|r| r.round);
    if let Some(note) = cost_agreement(&parts) {
        out.notes.push(note);
    }
    let hosts = out.sharding.hosts();
    out.notes.push(format!(
        "Merged from {} shard(s) run on {} host(s) ({}): rounds are paired within each host's round, and the host-to-host spread of the base is shown beside each effect.",
        parts.len(),
        hosts.len(),
        hosts.join(", ")
    ));
    Ok(out)
}

/// One line naming the first way the parts are not shards of one study.
fn check(parts: &[Part]) -> Result<()> {
    let first = &parts[0];
    for p in parts {
        if p.doc.finished_unix.is_none() {
            return Err(usage(format!(
                "{} has not finished (psbench run --resume {} finishes it)",
                p.path, p.path
            )));
        }
        if p.doc.sharding.definition_sha256.is_empty() {
            return Err(usage(format!(
                "{}: no study checksum (made by a psbench from before sharding): cannot tell which study it ran",
                p.path
            )));
        }
    }
    for p in &parts[1..] {
        let (a, b) = (&first.doc, &p.doc);
        if a.sharding.definition_sha256 != b.sharding.definition_sha256 {
            return Err(usage(format!(
                "{} and {} ran different study definitions ('{}' and '{}'): only shards of one study merge",
                first.path, p.path, a.study.name, b.study.name
            )));
        }
        if a.tool_version != b.tool_version {
            return Err(usage(format!(
                "{} and {} were made by different psbench versions ({} and {})",
                first.path, p.path, a.tool_version, b.tool_version
            )));
        }
        let counts = (
            a.sharding.shard.map(|s| s.count),
            b.sharding.shard.map(|s| s.count),
        );
        if counts.0 != counts.1 {
            let show =
                |c: Option<u32>| c.map_or("unsharded".to_string(), |c| format!("of {c} shards"));
            return Err(usage(format!(
                "{} and {} split the rounds differently ({} and {})",
                first.path,
                p.path,
                show(counts.0),
                show(counts.1)
            )));
        }
    }
    // The same binary per variant on every host, or the same build: one source, flag set and
    // compiler built on each host (paths and timestamps in a binary differ between hosts).
    let mut binaries: BTreeMap<&str, (&str, &str, Option<&Origin>)> = BTreeMap::new();
    for p in parts {
        for (name, prov) in &p.doc.variants {
            let origin = prov.build.as_ref().map(|b| &b.origin);
            match binaries.get(name.as_str()) {
                Some((_, _, Some(o))) if same_build(o, origin) => {}
                Some((sha, path, _)) if *sha != prov.server_sha256 => {
                    return Err(usage(format!(
                    "variant '{name}' ran a different server binary in {} ({}) than in {path} ({})",
                    p.path,
                    short(&prov.server_sha256),
                    short(sha)
                )))
                }
                Some(_) => {}
                None => {
                    binaries.insert(name, (&prov.server_sha256, &p.path, origin));
                }
            }
        }
    }
    // No round twice.
    let mut seen: BTreeMap<u32, &str> = BTreeMap::new();
    for p in parts {
        for r in rounds_of(&p.doc) {
            if let Some(other) = seen.insert(r, &p.path) {
                return Err(usage(format!(
                    "round {} is in both {other} and {}: a round merges once",
                    r + 1,
                    p.path
                )));
            }
        }
    }
    Ok(())
}

/// Two builds from one pinned source with one flag set and compiler.
fn same_build(a: &Origin, b: Option<&Origin>) -> bool {
    match (a, b) {
        (
            Origin::Build {
                source_sha256: s1,
                flags: f1,
                compiler: c1,
                ..
            },
            Some(Origin::Build {
                source_sha256: s2,
                flags: f2,
                compiler: c2,
                ..
            }),
        ) => s1 == s2 && f1 == f2 && c1 == c2,
        _ => false,
    }
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

/// When more than one part ran cost mode: how far their instructions per unit agree.
fn cost_agreement(parts: &[Part]) -> Option<String> {
    let with_cost: Vec<&Part> = parts.iter().filter(|p| !p.doc.cost.is_empty()).collect();
    if with_cost.len() < 2 {
        return None;
    }
    let mut worst: Option<(f64, String)> = None;
    let mut compared = 0;
    for c in with_cost[0].doc.cost.iter().filter(|c| c.ok) {
        let counts: Vec<(f64, &str)> = with_cost
            .iter()
            .filter_map(|p| {
                p.doc
                    .cost_for(&c.variant, &c.step)
                    .filter(|o| o.ok)
                    .map(|o| (o.ir_per_txn, p.doc.host.hostname.as_str()))
            })
            .collect();
        if counts.len() < 2 {
            continue;
        }
        compared += 1;
        let lo = counts
            .iter()
            .copied()
            .fold((f64::MAX, ""), |m, x| if x.0 < m.0 { x } else { m });
        let hi = counts
            .iter()
            .copied()
            .fold((f64::MIN, ""), |m, x| if x.0 > m.0 { x } else { m });
        let apart = (hi.0 - lo.0) / lo.0;
        if worst.as_ref().is_none_or(|(w, _)| apart > *w) {
            worst = Some((
                apart,
                format!(
                    "{} {}: {:.0} on {} against {:.0} on {}",
                    c.variant, c.step, hi.0, hi.1, lo.0, lo.1
                ),
            ));
        }
    }
    let (apart, which) = worst?;
    Some(format!(
        "Cost mode ran on {} hosts: their instructions per unit agree within {:.2}% over {compared} (variant, step) pair(s); the widest, {which}. The report's cost table is {}'s.",
        with_cost.len(),
        apart * 100.0,
        with_cost[0].doc.host.hostname
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_source_flag_set_and_compiler_is_one_build_on_any_host() {
        let build = |flags: &str, compiler: &str| Origin::Build {
            name: format!("mariadb-10.11.18-{flags}-host"),
            source: "debian:mariadb=1:10.11.18-0+deb12u1".into(),
            source_sha256: "ab12".into(),
            flags: flags.into(),
            compiler: compiler.into(),
        };
        let a = build("no_pfs", "gcc 12.2.0");
        assert!(same_build(&a, Some(&build("no_pfs", "gcc 12.2.0"))));
        assert!(!same_build(&a, Some(&build("release", "gcc 12.2.0"))));
        assert!(!same_build(&a, Some(&build("no_pfs", "gcc 13.1.0"))));
        assert!(!same_build(&a, None));
        let system = Origin::System { package: None };
        assert!(!same_build(&system, Some(&system)));
    }
}
