//! What a study measures, and what of it a results document still lacks: the variants each
//! mode measures, the rounds a document (or a shard) runs, the cells and cost results not yet
//! measured. Pure functions of the study and its document, so that the plan, the report and
//! a resumed run agree on what is left.

use crate::results::study::{Mode, Study, Variant, WorkloadStep};
use crate::results::{CellKey, StudyResults};

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

/// The variants measured in cost mode on this machine (`cost_variants_on` its CPU's flags).
pub fn cost_variants(s: &Study) -> Vec<&Variant> {
    cost_variants_on(s, &crate::engines::from_source::cpu_flags())
}

/// The variants measured in cost mode on a CPU with these flags, in the study's order. With
/// `mode = "both"`, a build valgrind cannot run on the CPU is measured in throughput only (the
/// run notes it); with `mode = "cost"` it stays, and the run refuses it by name.
pub fn cost_variants_on<'a>(s: &'a Study, cpu_flags: &str) -> Vec<&'a Variant> {
    match s.mode {
        Mode::Throughput => Vec::new(),
        Mode::Cost => s.variants.iter().collect(),
        Mode::Both => s
            .variants
            .iter()
            .filter(|v| crate::engines::from_source::uncountable_on(v, cpu_flags).is_none())
            .collect(),
    }
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
            study
                .cost_labels(w)
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
            study
                .cost_labels(w)
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

/// Whether this document runs cost mode: a whole study does, of a sharded one shard 0 (or
/// every shard, when asked).
pub fn runs_cost(res: &StudyResults) -> bool {
    res.sharding.shard.is_none_or(|s| s.runs_cost())
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
pub fn missing(res: &StudyResults, round: u32, v: &Variant, step: String, threads: u32) -> bool {
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
        use crate::engines::from_source::uncountable_on;
        let names = |flags: &str| -> Vec<String> {
            cost_variants_on(&s, flags)
                .iter()
                .map(|v| v.name.clone())
                .collect()
        };
        // A CPU with AVX-512: valgrind cannot run the native build, so it is timed only.
        let avx512 = "fpu sse4_2 avx2 avx512f avx512dq avx512bw";
        assert!(uncountable_on(&s.variants[1], avx512)
            .unwrap()
            .contains("AVX-512 (avx512f, avx512dq, avx512bw)"));
        assert!(uncountable_on(&s.variants[0], avx512).is_none());
        assert_eq!(names(avx512), ["rel"]);
        // Without it, both are counted.
        let avx2 = "fpu sse4_2 avx2";
        assert!(uncountable_on(&s.variants[1], avx2).is_none());
        assert_eq!(names(avx2), ["rel", "native"]);
        assert_eq!(throughput_variants(&s).len(), 2);
    }
}
