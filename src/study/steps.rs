//! A study's workload steps through their kinds (workloads::kinds): each entry's kind is
//! asked once, told what it needs of the study, and answers for its cells, its runs, what
//! cost mode counts, its data and its connections.

use crate::results::study::{Study, WorkloadStep};
use crate::workloads::kinds::{self, Context, Counted, Data, Kind, Runs};
use anyhow::Result;

impl Study {
    /// pgbench's scale of the dataset: `dataset.pgbench_scale`, 1 by default.
    pub fn pgbench_scale(&self) -> u32 {
        self.dataset.pgbench_scale.unwrap_or(1)
    }

    /// What an entry's kind is told of this study.
    pub fn kind_context(&self) -> Context<'_> {
        let (tables, table_size) = self.dataset_size();
        Context {
            threads: &self.threads,
            data: crate::workloads::OltpOptions {
                tables,
                table_size,
                ..Default::default()
            },
            pgbench_scale: self.pgbench_scale(),
            cost_workloads: self.cost_workloads.as_deref(),
            cost: &self.cost,
            warmup: self.warmup,
            duration: self.duration,
            entries: self.workloads.len(),
            alternating: self.schedule == crate::results::study::Schedule::Alternate,
        }
    }

    /// The kind of entry `w`.
    pub fn kind(&self, w: &WorkloadStep) -> &'static dyn Kind {
        kinds::of(w)
    }

    /// The cells of one workload entry: (step label, threads), as its kind measures them.
    pub fn cells_of(&self, w: &WorkloadStep) -> Vec<(String, u32)> {
        kinds::of(w).cells(w, &self.kind_context())
    }

    /// How throughput rounds run entry `w`.
    pub fn runs_of(&self, w: &WorkloadStep) -> Result<Runs> {
        kinds::of(w).runs(w, &self.kind_context())
    }

    /// How cost mode counts entry `w`.
    pub fn counted_of(&self, w: &WorkloadStep) -> Result<Counted> {
        kinds::of(w).counted(w, &self.kind_context())
    }

    /// The cost results entry `w` gives.
    pub fn cost_labels(&self, w: &WorkloadStep) -> Vec<String> {
        kinds::of(w).cost_labels(w, &self.kind_context())
    }

    /// Why entry `w`'s cells run in order on one server, if they must.
    pub fn in_order(&self, w: &WorkloadStep) -> Option<String> {
        kinds::of(w).in_order(w)
    }

    /// The entries whose cells may run alone, each on the same data (index in `workloads`).
    pub fn independent_steps(&self) -> Vec<usize> {
        (0..self.workloads.len())
            .filter(|&i| self.in_order(&self.workloads[i]).is_none())
            .collect()
    }

    /// The most client connections a cell of the study opens.
    pub fn most_connections(&self) -> u32 {
        let ctx = self.kind_context();
        self.workloads
            .iter()
            .map(|w| kinds::of(w).connections(w, &ctx))
            .max()
            .unwrap_or(1)
            .max(1)
    }

    /// Seconds of one variant's turn of the steps throughput rounds measure, for `--plan`.
    pub fn turn_seconds(&self, cell_overhead: f64) -> f64 {
        let ctx = self.kind_context();
        self.workloads
            .iter()
            .filter(|w| self.throughput_selects(&w.label()))
            .map(|w| kinds::of(w).turn_seconds(w, &ctx, cell_overhead))
            .sum()
    }

    /// What the prepared dataset must hold for every entry: the first entry's sysbench
    /// tables that shapes them (else the dataset's defaults), and pgbench's tables at the
    /// largest scale any entry asks for.
    pub fn data_needs(&self) -> Result<Data> {
        let ctx = self.kind_context();
        let mut need = Data::default();
        for w in &self.workloads {
            let d = kinds::of(w).data(w, &ctx)?;
            if need.oltp.is_none() {
                need.oltp = d.oltp;
            }
            need.pgbench_scale = need.pgbench_scale.max(d.pgbench_scale);
        }
        need.oltp.get_or_insert(ctx.data);
        Ok(need)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_write_step_and_each_query_shape_once_gets_a_result() {
        let steps = r#"steps = ["l.i0", "l.x", "qr100", "qp100", "qr500", "qp1000"]"#;
        let s = with_cost_workloads(r#""point_select", "ib""#, steps).unwrap();
        assert_eq!(s.cost_labels(&s.workloads[0]), ["point_select"]);
        assert_eq!(
            s.cost_labels(&s.workloads[1]),
            ["ib l.i0", "ib l.x", "ib qr100", "ib qp100"]
        );
        let o = crate::workloads::kinds::insert_benchmark::cost_options(
            &s.workloads[1],
            &s.kind_context(),
        )
        .unwrap();
        assert_eq!(
            (o.clients, o.rows, o.rows_i1, o.rows_i2),
            (1, 20_000, 4_000, 1_000)
        );
    }

    /// A study of point select and one named Insert Benchmark entry running `ib_steps` (all
    /// steps when empty), then an unnamed entry running l.i0 and qr100.
    fn with_cost_workloads(names: &str, ib_steps: &str) -> anyhow::Result<Study> {
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
            s.cost_labels(entries[0]),
            ["ib l.i1", "ib qr500", "ib qp1000"]
        );
        // qr100 and qr500 named together: one query shape, measured once, at the first.
        let s = with_cost_workloads(r#""ib qr100", "ib qr500""#, "").unwrap();
        assert_eq!(s.cost_labels(s.cost_steps()[0]), ["ib qr100"]);
        // An unnamed entry's steps are named as its cells are: "l.i0" alone.
        let s = with_cost_workloads(r#""l.i0", "point_select""#, "").unwrap();
        let labels: Vec<Vec<String>> = s.cost_steps().iter().map(|w| s.cost_labels(w)).collect();
        assert_eq!(labels, [vec!["point_select"], vec!["l.i0"]]);
        // The entry's label still stands for all its steps.
        let s = with_cost_workloads(r#""insert-benchmark""#, "").unwrap();
        assert_eq!(s.cost_labels(s.cost_steps()[0]), ["l.i0", "qr100"]);
        // A step the entry does not run, or a step without its entry's name, is a mistake.
        for bad in [r#""qp100""#, r#""l.x""#, r#""ib l.i9""#] {
            let e = with_cost_workloads(bad, "").unwrap_err();
            assert!(crate::error::is_usage(&e), "{bad}: {e}");
            assert!(e.to_string().contains("which is no workload step"), "{e}");
        }
    }
}
