//! An entry whose steps run in order (the Insert Benchmark) as cost mode runs it on one
//! variant: the steps up to the last one still missing, each with its cell's seed (which
//! steps get a result: the entry's kind, workloads::kinds; the counting itself:
//! crate::cost::ibench).

use super::context::cell_seed;
use crate::cost::ibench::{Entry, EntryStep};
use crate::cost::Plan;
use crate::results::study::{Study, WorkloadStep};
use crate::workloads::kinds::Counted;
use anyhow::Result;

/// The entry as cost mode runs it on one variant: `wanted` are the labels of the results
/// still missing, and each step's seed is its cell's, from `base_seed`. The steps run in
/// order up to the last one counted, since each needs the table the earlier ones leave.
pub fn cost_entry(
    study: &Study,
    w: &WorkloadStep,
    base_seed: u64,
    wanted: &[String],
) -> Result<Entry> {
    let Counted::Sequence {
        options,
        steps: all,
        counted,
    } = study.counted_of(w)?
    else {
        anyhow::bail!("workload '{}' is counted by transactions", w.label());
    };
    let windows = w.cost_events.clone().unwrap_or(study.cost.events.clone());
    let counted: Vec<String> = counted.into_iter().filter(|l| wanted.contains(l)).collect();
    let last = all.iter().rposition(|(label, _)| counted.contains(label));
    let steps = all
        .into_iter()
        .take(last.map_or(0, |i| i + 1))
        .map(|(label, step)| EntryStep {
            seed: cell_seed(base_seed, 0, &label, 1),
            counted: counted.contains(&label),
            label,
            step,
        })
        .collect();
    // Heavier transactions take fewer warm-up transactions, as they take fewer measured ones.
    let plan = Plan {
        warmup: study.cost.warmup_events.min(windows[0]),
        windows,
    };
    Ok(Entry {
        options,
        steps,
        plan,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_runs_up_to_its_last_missing_step_with_the_cells_seeds() {
        let text = r#"cost_workloads = ["ib l.i1", "ib qr100"]
name = "t"
[[variant]]
name = "a"
[[workload]]
name = "ib"
workload = "insert-benchmark"
"#;
        let s = crate::study::file::parse(text, "t.toml").unwrap();
        let w = s.cost_steps()[0];
        let e = cost_entry(&s, w, 7, &["ib l.i1".to_string()]).unwrap();
        let steps: Vec<(&str, bool)> = e
            .steps
            .iter()
            .map(|s| (s.label.as_str(), s.counted))
            .collect();
        // l.i1 alone still missing: the write steps before it build its table, uncounted, and
        // nothing after it runs.
        assert_eq!(
            steps,
            [("ib l.i0", false), ("ib l.x", false), ("ib l.i1", true)]
        );
        assert!(e
            .steps
            .iter()
            .all(|st| st.seed == cell_seed(7, 0, &st.label, 1)));
        assert_eq!(e.options.rows, 20_000);
        assert_eq!(e.plan.windows, s.cost.events);
        // Nothing missing: nothing runs.
        assert!(cost_entry(&s, w, 7, &[]).unwrap().steps.is_empty());
    }
}
