//! The work list of a study: which cells and cost measurements are still to do, in the order
//! they run (rounds × variants rotated per round × cells). A pure function of the study and
//! its results document, so that a resumed study does exactly what is missing.

use super::file::{Mode, Study, Variant, WorkloadStep};
use super::ibench_cost::cost_labels;
use crate::results::{CellKey, StudyResults};

/// One variant's turn in one round: the sysbench cells (index into the study's sysbench
/// steps, threads) and the Insert Benchmark entries with a step still to do.
pub struct Turn<'a> {
    pub round: u32,
    pub variant: &'a Variant,
    pub cells: Vec<(usize, u32)>,
    pub insert_benchmark: Vec<&'a WorkloadStep>,
}

/// The variants measured in throughput mode, in the study's order.
pub fn throughput_variants(s: &Study) -> Vec<&Variant> {
    match s.mode {
        Mode::Cost => Vec::new(),
        Mode::Throughput => s.variants.iter().collect(),
        // The releases bisection added are counted, not timed.
        Mode::Both => match &s.throughput_variants {
            Some(names) => s
                .variants
                .iter()
                .filter(|v| names.contains(&v.name))
                .collect(),
            None => s.variants.iter().filter(|v| !v.located).collect(),
        },
    }
}

/// The variants measured in cost mode, in the study's order. With `mode = "both"`, a build
/// valgrind cannot run on this CPU is measured in throughput only (the run notes it); with
/// `mode = "cost"` it stays, and the run refuses it by name.
pub fn cost_variants(s: &Study) -> Vec<&Variant> {
    match s.mode {
        Mode::Throughput => Vec::new(),
        Mode::Cost => s.variants.iter().collect(),
        Mode::Both => s
            .variants
            .iter()
            .filter(|v| crate::engines::from_source::uncountable(v).is_none())
            .collect(),
    }
}

/// Round `r`'s variant order: even rounds rotate the study's order, odd rounds its reverse
/// (ABC, CBA, BCA, BAC, CAB, ACB). Every variant runs first equally often, so none is always
/// first after a quiet spell or last in a drift; and over 2k rounds of k variants each
/// ordered pair follows one another equally often, so an effect a variant leaves behind (its
/// CPU caches, its background work) falls on every other variant alike. Rotation alone kept
/// one direction: with A B C, A ran after C in every round and never after B.
pub fn balanced_order<T: Clone>(items: &[T], round: u32) -> Vec<T> {
    if items.is_empty() {
        return Vec::new();
    }
    let mut base = items.to_vec();
    if round % 2 == 1 {
        base.reverse();
    }
    let k = (round / 2) as usize % base.len();
    base[k..].iter().chain(&base[..k]).cloned().collect()
}

/// The (variant, cost step) pairs without a result yet (none in a shard that runs no cost).
pub fn cost_todo<'a>(study: &'a Study, res: &StudyResults) -> Vec<(&'a Variant, &'a WorkloadStep)> {
    if !runs_cost(res) {
        return Vec::new();
    }
    cost_variants(study)
        .into_iter()
        .flat_map(|v| study.cost_steps().into_iter().map(move |w| (v, w)))
        .filter(|(v, w)| {
            cost_labels(study, w)
                .iter()
                .any(|l| res.cost_for(&v.name, l).is_none())
        })
        .collect()
}

/// The cost results still missing: one per step of an Insert Benchmark entry, one per
/// sysbench entry (the progress bar counts these).
pub fn cost_results_todo(study: &Study, res: &StudyResults) -> u64 {
    cost_todo(study, res)
        .iter()
        .map(|(v, w)| {
            cost_labels(study, w)
                .iter()
                .filter(|l| res.cost_for(&v.name, l).is_none())
                .count() as u64
        })
        .sum()
}

/// The rounds this document runs (a shard's share, or all), each with the number its variant
/// order rotates by: its position among them, so that a shard goes through every order.
pub fn my_rounds(study: &Study, res: &StudyResults) -> Vec<(u32, u32)> {
    match res.sharding.shard {
        Some(s) => s
            .rounds(study.rounds)
            .into_iter()
            .map(|r| (r, s.local(r)))
            .collect(),
        None => (0..study.rounds).map(|r| (r, r)).collect(),
    }
}

/// The variants of round `round` in the order they run.
pub fn order<'a>(study: &'a Study, res: &StudyResults, round: u32) -> Vec<&'a Variant> {
    let local = res.sharding.shard.map_or(round, |s| s.local(round));
    balanced_order(&throughput_variants(study), local)
}

/// Whether this document runs cost mode: a whole study does, of a sharded one shard 0 (or
/// every shard, when asked).
pub fn runs_cost(res: &StudyResults) -> bool {
    res.sharding.shard.is_none_or(|s| s.runs_cost())
}

/// Every variant's turn in every round that still has a cell to do, in running order.
pub fn turns<'a>(study: &'a Study, res: &StudyResults) -> Vec<Turn<'a>> {
    let sysbench = study.sysbench_steps();
    let missing = |round, v: &Variant, step, threads| missing(res, round, v, step, threads);
    let mut out = Vec::new();
    for (round, local) in my_rounds(study, res) {
        for v in balanced_order(&throughput_variants(study), local) {
            let cells: Vec<(usize, u32)> = sysbench
                .iter()
                .enumerate()
                .flat_map(|(i, w)| study.threads_for(w).into_iter().map(move |t| (i, t)))
                .filter(|(i, _)| study.throughput_selects(&sysbench[*i].label()))
                .filter(|(i, t)| missing(round, v, sysbench[*i].label(), *t))
                .collect();
            let insert_benchmark: Vec<&WorkloadStep> = study
                .workloads
                .iter()
                .filter(|w| w.is_insert_benchmark() && study.throughput_selects(&w.label()))
                .filter(|w| {
                    study
                        .cells_of(w)
                        .into_iter()
                        .any(|(step, threads)| missing(round, v, step, threads))
                })
                .collect();
            if !cells.is_empty() || !insert_benchmark.is_empty() {
                out.push(Turn {
                    round,
                    variant: v,
                    cells,
                    insert_benchmark,
                });
            }
        }
    }
    out
}

/// Throughput cells still to do, for the progress display.
pub fn cells_todo(study: &Study, res: &StudyResults) -> u64 {
    let cells = study.throughput_cells();
    let mut n = 0;
    for (round, _) in my_rounds(study, res) {
        for v in throughput_variants(study) {
            n += cells
                .iter()
                .filter(|(step, threads)| missing(res, round, v, step.clone(), *threads))
                .count() as u64;
        }
    }
    n
}

/// For a results document whose study stopped before the end: one line saying how much of
/// its work list was measured and the command that finishes it; `None` for a finished study.
pub fn incomplete(res: &StudyResults, dir: &std::path::Path) -> Option<String> {
    let study = &res.study;
    let mut nothing = res.clone();
    nothing.cells.clear();
    nothing.cost.clear();
    let (cells, cells_left) = (cells_todo(study, &nothing), cells_todo(study, res));
    let (cost, cost_left) = (
        cost_results_todo(study, &nothing),
        cost_results_todo(study, res),
    );
    // A study stopped before its end has no finishing time, and cells still to do.
    if res.finished_unix.is_some() && cells_left == 0 && cost_left == 0 {
        return None;
    }
    let mut what = format!(
        "{} of {cells} cells measured",
        cells - cells_left.min(cells)
    );
    if cost > 0 {
        what += &format!(" (cost mode: {} of {cost})", cost - cost_left.min(cost));
    }
    Some(format!(
        "psbench: study {} is incomplete: {what}; finish it with: psbench run --resume {}",
        study.name,
        dir.display()
    ))
}

/// Whether the document has no result for this cell yet.
pub(super) fn missing(
    res: &StudyResults,
    round: u32,
    v: &Variant,
    step: String,
    threads: u32,
) -> bool {
    res.cell(&CellKey {
        round,
        variant: v.name.clone(),
        step,
        threads,
    })
    .is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::document::{FORMAT, VERSION};

    const STUDY: &str = r#"
name = "t"
mode = "both"
throughput_variants = ["a", "b"]
rounds = 2
threads = [1, 2]
[[variant]]
name = "a"
[[variant]]
name = "b"
[[variant]]
name = "c"
[[workload]]
workload = "oltp_point_select"
[[workload]]
workload = "insert-benchmark"
steps = ["l.i0", "qr100"]
"#;

    fn results(study: &Study) -> StudyResults {
        StudyResults {
            format: FORMAT.into(),
            version: VERSION,
            tool_version: "0".into(),
            study: study.clone(),
            origin: "t".into(),
            host: Default::default(),
            started_unix: 0,
            finished_unix: None,
            seed: 1,
            variants: Default::default(),
            cells: Vec::new(),
            cost: Vec::new(),
            notes: Vec::new(),
            steps: Vec::new(),
            frames_that_grew: None,
            datasets: Vec::new(),
            sharding: Default::default(),
            host_probes: Vec::new(),
        }
    }

    fn done(res: &mut StudyResults, round: u32, variant: &str, step: &str, threads: u32) {
        let key = CellKey {
            round,
            variant: variant.into(),
            step: step.into(),
            threads,
        };
        res.cells
            .push(super::super::cell::failed(key, String::new()));
    }

    #[test]
    fn rounds_alternate_rotations_of_the_order_and_its_reverse() {
        let v = ["a", "b", "c"];
        let orders: Vec<Vec<&str>> = (0..6).map(|r| balanced_order(&v, r)).collect();
        assert_eq!(
            orders,
            [
                ["a", "b", "c"],
                ["c", "b", "a"],
                ["b", "c", "a"],
                ["b", "a", "c"],
                ["c", "a", "b"],
                ["a", "c", "b"]
            ]
        );
        // Every ordered pair is adjacent equally often over 2k rounds; every variant is first
        // equally often.
        let mut follows = std::collections::BTreeMap::new();
        for o in &orders {
            for w in o.windows(2) {
                *follows.entry((w[0], w[1])).or_insert(0) += 1;
            }
        }
        assert_eq!(follows.len(), 6);
        assert!(follows.values().all(|&n| n == 2), "{follows:?}");
        for x in v {
            assert_eq!(orders.iter().filter(|o| o[0] == x).count(), 2);
        }
        assert_eq!(balanced_order(&["a", "b"], 1), ["b", "a"]);
        assert_eq!(balanced_order(&["a", "b"], 2), ["b", "a"]);
        assert_eq!(balanced_order(&["a", "b"], 3), ["a", "b"]);
    }

    #[test]
    fn a_fresh_study_runs_every_turn_in_rotated_order() {
        let study = crate::study::file::parse(STUDY, "t").unwrap();
        let res = results(&study);
        let order: Vec<(u32, &str)> = turns(&study, &res)
            .iter()
            .map(|t| (t.round, t.variant.name.as_str()))
            .collect();
        // Only the throughput variants, and the second round starts with the second.
        assert_eq!(order, [(0, "a"), (0, "b"), (1, "b"), (1, "a")]);
        let first = &turns(&study, &res)[0];
        assert_eq!(first.cells, [(0, 1), (0, 2)]);
        assert_eq!(first.insert_benchmark.len(), 1);
        // Two sysbench cells and two Insert Benchmark steps per turn.
        assert_eq!(cells_todo(&study, &res), 16);
        // Cost over every variant, of both entries.
        assert_eq!(cost_todo(&study, &res).len(), 6);
        // The Insert Benchmark entry gives a result per step: l.i0 and qr100.
        assert_eq!(cost_results_todo(&study, &res), 9);
    }

    #[test]
    fn a_shard_runs_its_rounds_in_every_order_and_cost_only_in_shard_0() {
        let text = STUDY.replace("rounds = 2", "rounds = 5");
        let study = crate::study::file::parse(&text, "t").unwrap();
        let mut res = results(&study);
        let shard = |index, cost_on_every_shard| crate::results::ShardInfo {
            index,
            count: 2,
            cost_on_every_shard,
        };
        res.sharding.shard = Some(shard(1, false));
        let order: Vec<(u32, &str)> = turns(&study, &res)
            .iter()
            .map(|t| (t.round, t.variant.name.as_str()))
            .collect();
        // Rounds 1 and 3, its first and second: both orders, although both are odd.
        assert_eq!(order, [(1, "a"), (1, "b"), (3, "b"), (3, "a")]);
        assert_eq!(cells_todo(&study, &res), 16);
        assert!(cost_todo(&study, &res).is_empty());
        res.sharding.shard = Some(shard(1, true));
        assert_eq!(cost_todo(&study, &res).len(), 6);
        res.sharding.shard = Some(shard(0, false));
        let rounds: Vec<u32> = my_rounds(&study, &res).iter().map(|r| r.0).collect();
        assert_eq!(rounds, [0, 2, 4]);
        assert_eq!(cost_todo(&study, &res).len(), 6);
    }

    #[test]
    fn a_resumed_study_does_only_what_is_missing() {
        let study = crate::study::file::parse(STUDY, "t").unwrap();
        let mut res = results(&study);
        // Round 0 of a is complete; b has one sysbench cell and one step done.
        for (step, threads) in [
            ("point_select", 1),
            ("point_select", 2),
            ("l.i0", 1),
            ("qr100", 1),
        ] {
            done(&mut res, 0, "a", step, threads);
        }
        done(&mut res, 0, "b", "point_select", 2);
        done(&mut res, 0, "b", "l.i0", 1);
        let t = turns(&study, &res);
        let order: Vec<(u32, &str)> = t
            .iter()
            .map(|t| (t.round, t.variant.name.as_str()))
            .collect();
        assert_eq!(order, [(0, "b"), (1, "b"), (1, "a")]);
        assert_eq!(t[0].cells, [(0, 1)]);
        // A sequence with a step left runs again (its steps build on each other).
        assert_eq!(t[0].insert_benchmark.len(), 1);
        assert_eq!(cells_todo(&study, &res), 16 - 6);
        res.cost
            .push(crate::results::CostResult::new("c", "point_select"));
        assert_eq!(cost_todo(&study, &res).len(), 5);
        // The Insert Benchmark entry stays to do until each of its steps has a result.
        res.cost.push(crate::results::CostResult::new("c", "l.i0"));
        assert_eq!(cost_todo(&study, &res).len(), 5);
        res.cost.push(crate::results::CostResult::new("c", "qr100"));
        assert_eq!(cost_todo(&study, &res).len(), 4);
        assert_eq!(cost_results_todo(&study, &res), 9 - 3);
    }
    #[test]
    fn a_native_build_leaves_cost_mode_only_where_valgrind_cannot_run_it() {
        let s = crate::study::file::parse(
            r#"
name = "t"
mode = "both"
[[variant]]
name = "rel"
build = { source = "debian:mariadb", flags = "release" }
[[variant]]
name = "native"
build = { source = "debian:mariadb", flags = "native" }
[[workload]]
workload = "oltp_point_select"
"#,
            "t.toml",
        )
        .unwrap();
        let counted: Vec<&str> = cost_variants(&s).iter().map(|v| v.name.as_str()).collect();
        let avx512 = crate::engines::from_source::uncountable(&s.variants[1]).is_some();
        assert!(crate::engines::from_source::uncountable(&s.variants[0]).is_none());
        let expected: &[&str] = if avx512 { &["rel"] } else { &["rel", "native"] };
        assert_eq!(counted, expected);
        assert_eq!(throughput_variants(&s).len(), 2);
    }
}
