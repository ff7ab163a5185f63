//! The Insert Benchmark: its steps build on one another's table, so they run in order, a
//! cell each at the entry's client count. Cost mode counts them at its own sizes on one
//! table:
//!
//! - every write step `cost_workloads` selects (all when it names the entry) gets a result;
//! - query steps run with the writers off, so qr500 and qr1000 do what qr100 does: each query
//!   shape is measured once, at the first of its steps selected;
//! - the write steps before the last one measured run uncounted, to build the table.

use super::{Context, Counted, Data, Kind, Runs, Sequence};
use crate::error::usage;
use crate::results::study::WorkloadStep;
use crate::workloads::ibench::{parse_steps, IbenchOptions, QueryShape, Step, StepKind};
use anyhow::Result;

/// The workload name of the Insert Benchmark in a study file.
pub const INSERT_BENCHMARK: &str = "insert-benchmark";

pub struct InsertBenchmark;

/// The entry's options: its defaults, then the entry's `options`.
pub fn options(w: &WorkloadStep) -> Result<IbenchOptions> {
    let mut table = toml::Table::new();
    for (k, v) in &w.options {
        table.insert(k.replace('-', "_"), v.clone());
    }
    let o: IbenchOptions = table
        .try_into()
        .map_err(|e: toml::de::Error| usage(format!("workload options: {}", e.message())))?;
    o.validate()?;
    Ok(o)
}

/// The entry's steps in order, with these options.
fn steps_with(w: &WorkloadStep, o: &IbenchOptions) -> Result<Vec<Step>> {
    let list = w
        .steps
        .as_ref()
        .map(|s| s.join(","))
        .unwrap_or_else(|| "all".into());
    parse_steps(&list, o)
}

/// The entry's options at cost mode's sizes: one table, the study's `[cost]` rows.
pub fn cost_options(w: &WorkloadStep, ctx: &Context) -> Result<IbenchOptions> {
    let mut o = options(w)?;
    o.clients = 1;
    o.rows = ctx.cost.ibench_rows;
    o.rows_i1 = ctx.cost.ibench_rows_i1;
    o.rows_i2 = ctx.cost.ibench_rows_i2;
    Ok(o)
}

/// The entry's steps that get a cost result, in order: the write steps `cost_workloads`
/// selects (all when it names the entry), and the first selected step of each query shape.
fn measured_steps(w: &WorkloadStep, ctx: &Context) -> Result<Vec<Step>> {
    let whole = ctx.cost_selects(&w.label());
    let mut shapes: Vec<QueryShape> = Vec::new();
    Ok(steps_with(w, &cost_options(w, ctx)?)?
        .into_iter()
        .filter(|s| whole || ctx.cost_selects(&w.sub_label(&s.name)))
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

impl Kind for InsertBenchmark {
    fn mistakes(&self, w: &WorkloadStep, _ctx: &Context) -> Vec<String> {
        let mut m = super::foreign_keys(w, &["steps"]);
        if let Err(e) = options(w).and_then(|o| steps_with(w, &o)) {
            m.push(crate::error::one_line(&e));
        }
        m
    }

    fn cells(&self, w: &WorkloadStep, _ctx: &Context) -> Vec<(String, u32)> {
        let Ok(o) = options(w) else {
            return Vec::new();
        };
        steps_with(w, &o)
            .unwrap_or_default()
            .iter()
            .map(|s| (w.sub_label(&s.name), o.clients))
            .collect()
    }

    fn runs(&self, w: &WorkloadStep, _ctx: &Context) -> Result<Runs> {
        let options = options(w)?;
        let steps = steps_with(w, &options)?;
        Ok(Runs::Sequence(Sequence { options, steps }))
    }

    fn cost_labels(&self, w: &WorkloadStep, ctx: &Context) -> Vec<String> {
        measured_steps(w, ctx)
            .map(|steps| steps.iter().map(|s| w.sub_label(&s.name)).collect())
            .unwrap_or_default()
    }

    fn counted(&self, w: &WorkloadStep, ctx: &Context) -> Result<Counted> {
        let options = cost_options(w, ctx)?;
        let counted = self.cost_labels(w, ctx);
        let steps = steps_with(w, &options)?
            .into_iter()
            .map(|s| (w.sub_label(&s.name), s))
            .collect();
        Ok(Counted::Sequence {
            options,
            steps,
            counted,
        })
    }

    fn in_order(&self, w: &WorkloadStep) -> Option<String> {
        Some(format!(
            "workload '{}': the Insert Benchmark changes its data step by step",
            w.label()
        ))
    }

    /// Its query steps' inserter, deleter and querier per client.
    fn connections(&self, w: &WorkloadStep, _ctx: &Context) -> u32 {
        options(w).map_or(0, |o| 3 * o.clients)
    }

    /// Its loads at the rates measured here (l.i0 about 330,000 rows/s; l.i1 and l.i2, with
    /// deletes, 4.3–5 s per 100,000 rows), its query steps at their length, and the cleanup.
    fn turn_seconds(&self, w: &WorkloadStep, _ctx: &Context, _cell_overhead: f64) -> f64 {
        let Ok(o) = options(w) else {
            return 0.0;
        };
        let mut s = o.cleanup_seconds.unwrap_or(15.0);
        for step in steps_with(w, &o).unwrap_or_default() {
            s += match &step.kind {
                StepKind::Load { deletes: false } => step.rows() as f64 / 330_000.0,
                StepKind::Load { deletes: true } => step.rows() as f64 * 4.5e-5,
                StepKind::Index => 8.5,
                StepKind::Query { .. } => o.query_seconds as f64 + 1.0,
            };
        }
        s
    }

    /// Its own tables, made by its first step: the dataset holds only the defaults.
    fn data(&self, _w: &WorkloadStep, _ctx: &Context) -> Result<Data> {
        Ok(Data::default())
    }

    fn refused_by(
        &self,
        _w: &WorkloadStep,
        _dialect: crate::connection::Dialect,
    ) -> Option<String> {
        None
    }
}
