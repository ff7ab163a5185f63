//! Locating a sweep's changes (docs/study-file.md#locating-a-change): where the counts changed
//! between two measured releases and psbench can fetch releases between them, measure the
//! middle one in cost mode and keep the half that holds the change, until the change lies
//! between two neighbouring releases: the later one is the first release carrying it.

use super::context::RunContext;
use super::cost_runner;
use crate::results::release_order::order;
use crate::results::study::Variant;
use crate::results::sweep::sweeps;
use crate::results::StudyResults;
use crate::stats::changes::of_counts;
use anyhow::Result;
use std::collections::BTreeMap;

/// The releases psbench can fetch strictly between two releases, of the later one's line.
type Between<'a> = &'a dyn Fn(&str, &str) -> Result<Vec<String>>;

/// Measure releases between each change's two sides until every change is located.
pub(super) fn run(ctx: &RunContext, res: &mut StudyResults) -> Result<()> {
    let between = |lo: &str, hi: &str| crate::engines::catalogue::between(lo, hi);
    // Releases that could not be fetched, started or counted here: not tried again.
    let mut failed: Vec<String> = Vec::new();
    let mut datadirs = BTreeMap::new();
    loop {
        let probe = match next_probe(res, &between, &failed) {
            Ok(Some(probe)) => probe,
            Ok(None) => break,
            // Without the channel's list (no network) the sweep stands as measured.
            Err(e) => {
                let note = format!(
                    "The changes were not located: the releases between them could not be listed ({}).",
                    crate::error::one_line(&e)
                );
                ctx.progress.note(&note);
                res.notes.push(note);
                // So that no Finding calls a change located.
                res.study.locate = false;
                break;
            }
        };
        let mut v = probe.variant;
        let release = v.version.clone().unwrap_or_default();
        // One result per cost step of the release (an Insert Benchmark entry has several).
        let results: usize = ctx
            .study
            .cost_steps()
            .iter()
            .map(|w| ctx.study.cost_labels(w).len())
            .sum();
        ctx.progress.grow(results as u64);
        ctx.progress.note(&format!(
            "locate: {} {} changed between {} and {}: measuring {release}",
            probe.sweep, probe.step, probe.before, probe.after
        ));
        match measure(ctx, &mut v, &mut datadirs, res) {
            Ok(()) => {}
            Err(e) => {
                let note = format!(
                    "Locating a change of sweep {}: {release} could not be measured here ({}); the change is located among the releases that could.",
                    probe.sweep,
                    crate::error::one_line(&e)
                );
                ctx.progress.note(&note);
                res.notes.push(note);
                failed.push(release);
            }
        }
        res.save(&ctx.req.out_dir)?;
    }
    Ok(())
}

/// Fetch `v`'s release, prepare its data, add it to the study beside its sweep's releases
/// and count it on every cost step.
fn measure(
    ctx: &RunContext,
    v: &mut Variant,
    datadirs: &mut BTreeMap<Option<std::path::PathBuf>, super::dataset::Prepared>,
    res: &mut StudyResults,
) -> Result<()> {
    let release = v.version.clone().unwrap_or_default();
    v.basedir = Some(crate::engines::fetch::release(
        &release,
        &crate::server::fetch::cache_dir(),
        &mut std::io::stderr(),
    )?);
    insert_in_order(&mut res.study.variants, v.clone());
    let study = res.study.clone();
    super::dataset::add_datadirs(&ctx.req.home, &study, &[&*v], res, datadirs)?;
    let ctx = RunContext {
        study: &study,
        datadirs,
        ..*ctx
    };
    cost_runner::run_cost(&ctx, &[&*v], res)
}

/// A release to measure, and the change it helps locate.
#[derive(Debug)]
struct Probe {
    sweep: String,
    step: String,
    before: String,
    after: String,
    variant: Variant,
}

/// For the first change with releases between its two sides that are neither measured nor
/// failed, the middle one, as a variant of its sweep (named as the sweep names its releases).
fn next_probe(res: &StudyResults, between: Between, failed: &[String]) -> Result<Option<Probe>> {
    let release_of = |name: &str| res.study.release_of(name).map(str::to_string);
    for sw in sweeps(res) {
        let taken: Vec<&str> = res
            .study
            .variants
            .iter()
            .filter(|v| v.sweep.as_deref() == Some(sw.sweep.as_str()))
            .filter_map(|v| v.version.as_deref())
            .collect();
        for c in &of_counts(&sw.ranges()) {
            let (before, after) = (sw.points[c.index - 1].0, sw.points[c.index].0);
            let (Some(lo), Some(hi)) = (release_of(before), release_of(after)) else {
                continue;
            };
            let open: Vec<String> = between(&lo, &hi)?
                .into_iter()
                .filter(|r| !taken.contains(&r.as_str()) && !failed.contains(r))
                .collect();
            let Some(middle) = open.get(open.len() / 2) else {
                continue;
            };
            let template = res.study.variants.iter().find(|v| v.name == after);
            let mut v = template.cloned().unwrap_or_default();
            let version = middle.split_once('-').map_or(middle.as_str(), |(_, v)| v);
            v.name = format!("{}-{version}", sw.sweep);
            v.version = Some(middle.clone());
            v.basedir = None;
            v.located = true;
            return Ok(Some(Probe {
                sweep: sw.sweep.clone(),
                step: sw.step.clone(),
                before: before.to_string(),
                after: after.to_string(),
                variant: v,
            }));
        }
    }
    Ok(None)
}

/// `v` among its sweep's releases, in release order.
fn insert_in_order(variants: &mut Vec<Variant>, v: Variant) {
    let later = |w: &Variant| {
        w.sweep == v.sweep
            && order(
                w.version.as_deref().unwrap_or(""),
                v.version.as_deref().unwrap_or(""),
            )
            .is_gt()
    };
    let at = variants
        .iter()
        .position(later)
        .or_else(|| {
            variants
                .iter()
                .rposition(|w| w.sweep == v.sweep)
                .map(|i| i + 1)
        })
        .unwrap_or(variants.len());
    variants.insert(at, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::CostResult;

    /// Releases 15.0.0 to 15.9.0 of a channel.
    fn between(lo: &str, hi: &str) -> Result<Vec<String>> {
        let n = |r: &str| r.rsplit('.').nth(1).unwrap().parse::<u32>().unwrap();
        Ok((n(lo) + 1..n(hi))
            .map(|m| format!("postgres-15.{m}.0"))
            .collect())
    }

    fn variant(minor: u32) -> Variant {
        Variant {
            name: format!("pg-15.{minor}.0"),
            version: Some(format!("postgres-15.{minor}.0")),
            sweep: Some("pg".into()),
            ..Variant::default()
        }
    }

    fn cost(minor: u32, ir: f64) -> CostResult {
        let mut c = CostResult::new(&format!("pg-15.{minor}.0"), "select");
        c.ok = true;
        c.ir_per_txn = ir;
        c
    }

    /// A sweep that measured `measured` of releases 15.0.0–15.9.0 with the count 6% higher
    /// from 15.`first`.0 on.
    fn sweep(measured: &[u32], first: u32) -> StudyResults {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study");
        let mut res = StudyResults::load(&dir).unwrap();
        res.study.variants = measured.iter().map(|m| variant(*m)).collect();
        res.cost = measured
            .iter()
            .map(|m| cost(*m, if *m >= first { 42_400.0 } else { 40_000.0 }))
            .collect();
        res
    }

    #[test]
    fn bisection_finds_the_first_release_carrying_the_change() {
        for first in 1..=9 {
            let mut res = sweep(&[0, 9], first);
            // Measure each probe, add it, ask again: the study's loop.
            let mut probes = 0;
            while let Some(p) = next_probe(&res, &between, &[]).unwrap() {
                assert!(p.variant.located && p.variant.sweep.as_deref() == Some("pg"));
                let minor: u32 = p.variant.name.rsplit('.').nth(1).unwrap().parse().unwrap();
                res.cost.push(cost(
                    minor,
                    if minor >= first { 42_400.0 } else { 40_000.0 },
                ));
                insert_in_order(&mut res.study.variants, p.variant);
                probes += 1;
            }
            // The 8 releases between took at most log2(8) + 1 measurements.
            assert!(probes <= 4, "first {first}: {probes} probes");
            let names: Vec<&str> = res.study.variants.iter().map(|v| v.name.as_str()).collect();
            let mut sorted = names.clone();
            sorted.sort_by(|a, b| order(&a[3..], &b[3..]));
            assert_eq!(names, sorted, "release order kept");
            let sw = &sweeps(&res)[0];
            let changes = of_counts(&sw.ranges());
            assert_eq!(changes.len(), 1);
            let c = &changes[0];
            assert_eq!(
                (sw.points[c.index - 1].0, sw.points[c.index].0),
                (
                    format!("pg-15.{}.0", first - 1).as_str(),
                    format!("pg-15.{first}.0").as_str()
                )
            );
        }
    }

    #[test]
    fn a_release_that_failed_is_not_tried_again_and_no_change_needs_nothing() {
        let mut res = sweep(&[0, 2], 2);
        let failed = ["postgres-15.1.0".to_string()];
        assert!(next_probe(&res, &between, &failed).unwrap().is_none());
        let p = next_probe(&res, &between, &[]).unwrap().unwrap();
        assert_eq!(p.variant.version.as_deref(), Some("postgres-15.1.0"));
        assert_eq!(p.variant.name, "pg-15.1.0");
        assert_eq!(
            (p.before.as_str(), p.after.as_str()),
            ("pg-15.0.0", "pg-15.2.0")
        );
        // A 0.3% wobble is no change: nothing to locate.
        res.cost[1].ir_per_txn = 40_120.0;
        assert!(next_probe(&res, &between, &[]).unwrap().is_none());
    }
}
