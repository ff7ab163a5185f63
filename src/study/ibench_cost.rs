//! Which of an Insert Benchmark entry's steps cost mode measures in a study, and at what sizes
//! (how a run counts them: crate::run::ibench_cost).
//!
//! - every write step `cost_workloads` selects (all when it names the entry) gets a result;
//! - query steps run with the writers off, so qr500 and qr1000 do what qr100 does: each query
//!   shape is measured once, at the first of its steps selected;
//! - the write steps before the last one measured run uncounted, to build the table.

use super::file::{Study, WorkloadStep};
use crate::workloads::ibench::{parse_steps, IbenchOptions, QueryShape, Step, StepKind};
use anyhow::Result;

/// The entry's options at cost mode's sizes: one table, the study's `[cost]` rows.
pub fn cost_options(study: &Study, w: &WorkloadStep) -> Result<IbenchOptions> {
    let mut o = study.ibench_options(w)?;
    o.clients = 1;
    o.rows = study.cost.ibench_rows;
    o.rows_i1 = study.cost.ibench_rows_i1;
    o.rows_i2 = study.cost.ibench_rows_i2;
    Ok(o)
}

/// The entry's whole step sequence at cost mode's sizes.
pub fn all_steps(study: &Study, w: &WorkloadStep) -> Result<Vec<Step>> {
    let o = cost_options(study, w)?;
    let names = w
        .steps
        .as_ref()
        .map(|s| s.join(","))
        .unwrap_or_else(|| "all".into());
    parse_steps(&names, &o)
}

/// The entry's steps that get a cost result, in order: the write steps `cost_workloads`
/// selects (all when it names the entry), and the first selected step of each query shape.
pub fn measured_steps(study: &Study, w: &WorkloadStep) -> Result<Vec<Step>> {
    let whole = study.cost_selects(&w.label());
    let mut shapes: Vec<QueryShape> = Vec::new();
    Ok(all_steps(study, w)?
        .into_iter()
        .filter(|s| whole || study.cost_selects(&w.ibench_label(&s.name)))
        .filter(|s| match s.kind {
            StepKind::Query { shape, .. } if shapes.contains(&shape) => false,
            StepKind::Query { shape, .. } => {
                shapes.push(shape);
                true
            }
            _ => true,
        })
        .collect())
}

/// The cost results a workload entry gives: its label for a sysbench workload, the label of
/// each measured step for an Insert Benchmark entry.
pub fn cost_labels(study: &Study, w: &WorkloadStep) -> Vec<String> {
    if !w.is_insert_benchmark() {
        return vec![w.label()];
    }
    measured_steps(study, w)
        .map(|steps| steps.iter().map(|s| w.ibench_label(&s.name)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_write_step_and_each_query_shape_once_gets_a_result() {
        let steps = r#"steps = ["l.i0", "l.x", "qr100", "qp100", "qr500", "qp1000"]"#;
        let s = with_cost_workloads(r#""point_select", "ib""#, steps).unwrap();
        assert_eq!(cost_labels(&s, &s.workloads[0]), ["point_select"]);
        assert_eq!(
            cost_labels(&s, &s.workloads[1]),
            ["ib l.i0", "ib l.x", "ib qr100", "ib qp100"]
        );
        let o = cost_options(&s, &s.workloads[1]).unwrap();
        assert_eq!(
            (o.clients, o.rows, o.rows_i1, o.rows_i2),
            (1, 20_000, 4_000, 1_000)
        );
    }

    /// A study of point select and one named Insert Benchmark entry running `ib_steps` (all
    /// steps when empty), then an unnamed entry running l.i0 and qr100.
    fn with_cost_workloads(names: &str, ib_steps: &str) -> Result<Study> {
        let text = format!(
            r#"cost_workloads = [{names}]
name = "t"
[[variant]]
name = "a"
[[workload]]
workload = "oltp_point_select"
[[workload]]
name = "ib"
workload = "insert-benchmark"
{ib_steps}
[[workload]]
workload = "insert-benchmark"
steps = ["l.i0", "qr100"]
"#
        );
        crate::study::file::parse(&text, "t.toml")
    }

    #[test]
    fn cost_workloads_may_name_single_steps_by_their_cell_label() {
        let s = with_cost_workloads(r#""ib l.i1", "ib qr500", "ib qp1000""#, "").unwrap();
        let entries = s.cost_steps();
        assert_eq!(entries.len(), 1);
        assert_eq!(
            cost_labels(&s, entries[0]),
            ["ib l.i1", "ib qr500", "ib qp1000"]
        );
        // qr100 and qr500 named together: one query shape, measured once, at the first.
        let s = with_cost_workloads(r#""ib qr100", "ib qr500""#, "").unwrap();
        assert_eq!(cost_labels(&s, s.cost_steps()[0]), ["ib qr100"]);
        // An unnamed entry's steps are named as its cells are: "l.i0" alone.
        let s = with_cost_workloads(r#""l.i0", "point_select""#, "").unwrap();
        let labels: Vec<Vec<String>> = s.cost_steps().iter().map(|w| cost_labels(&s, w)).collect();
        assert_eq!(labels, [vec!["point_select"], vec!["l.i0"]]);
        // The entry's label still stands for all its steps.
        let s = with_cost_workloads(r#""insert-benchmark""#, "").unwrap();
        assert_eq!(cost_labels(&s, s.cost_steps()[0]), ["l.i0", "qr100"]);
        // A step the entry does not run, or a step without its entry's name, is a mistake.
        for bad in [r#""qp100""#, r#""l.x""#, r#""ib l.i9""#] {
            let e = with_cost_workloads(bad, "").unwrap_err();
            assert!(crate::error::is_usage(&e), "{bad}: {e}");
            assert!(e.to_string().contains("which is no workload step"), "{e}");
        }
    }
}
