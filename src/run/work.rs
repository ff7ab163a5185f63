//! The work list of a run: the turns still to do, in the order they run (rounds × variants
//! in a balanced order per round × cells). A pure function of the study and its results
//! document, so that a resumed study does exactly what is missing.

use crate::results::study::{Study, Variant, WorkloadStep};
use crate::results::StudyResults;
use crate::study::measures::{missing, my_rounds, throughput_variants};

/// One variant's turn in one round: the cells that run alone (index into the study's
/// workload entries, threads), and the entries whose cells run in order (an Insert
/// Benchmark entry) with a cell still to do.
pub struct Turn<'a> {
    pub round: u32,
    pub variant: &'a Variant,
    pub cells: Vec<(usize, u32)>,
    pub in_order: Vec<&'a WorkloadStep>,
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

/// The variants of round `round` in the order they run.
pub fn order<'a>(study: &'a Study, res: &StudyResults, round: u32) -> Vec<&'a Variant> {
    let local = res.sharding.shard.map_or(round, |s| s.local(round));
    balanced_order(&throughput_variants(study), local)
}

/// Every variant's turn in every round that still has a cell to do, in running order.
pub fn turns<'a>(study: &'a Study, res: &StudyResults) -> Vec<Turn<'a>> {
    let alone = study.independent_steps();
    let entries = &study.workloads;
    let missing = |round, v: &Variant, step, threads| missing(res, round, v, step, threads);
    let mut out = Vec::new();
    for (round, local) in my_rounds(study, res) {
        for v in balanced_order(&throughput_variants(study), local) {
            let cells: Vec<(usize, u32)> = alone
                .iter()
                .flat_map(|&i| {
                    study
                        .cells_of(&entries[i])
                        .into_iter()
                        .map(move |(_, t)| (i, t))
                })
                .filter(|(i, _)| study.throughput_selects(&entries[*i].label()))
                .filter(|(i, t)| missing(round, v, entries[*i].label(), *t))
                .collect();
            let in_order: Vec<&WorkloadStep> = entries
                .iter()
                .filter(|w| study.in_order(w).is_some() && study.throughput_selects(&w.label()))
                .filter(|w| {
                    study
                        .cells_of(w)
                        .into_iter()
                        .any(|(step, threads)| missing(round, v, step, threads))
                })
                .collect();
            if !cells.is_empty() || !in_order.is_empty() {
                out.push(Turn {
                    round,
                    variant: v,
                    cells,
                    in_order,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::CellKey;
    use crate::study::measures::{cells_todo, cost_results_todo, cost_todo, my_rounds};

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
        let mut r = StudyResults::new(study.clone(), "t");
        r.seed = 1;
        r
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
        assert_eq!(first.in_order.len(), 1);
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
        assert_eq!(t[0].in_order.len(), 1);
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
}
