//! sysbench's ten OLTP workloads: a cell per thread count on the study's sysbench tables,
//! their options by sysbench's names over the dataset's defaults.

use super::{Context, Counted, Data, Kind, Runs};
use crate::error::usage;
use crate::results::study::WorkloadStep;
use crate::workloads::sysbench::{sysbench_workload, OltpOptions};
use anyhow::Result;

pub struct Sysbench;

/// The entry's options: sysbench's defaults, the dataset's size, then the entry's own. An
/// unknown key is an error naming the nearest known one.
pub fn options(w: &WorkloadStep, ctx: &Context) -> Result<OltpOptions> {
    let base = ctx.data.clone();
    if w.options.is_empty() {
        return Ok(base);
    }
    let mut table = toml::Table::try_from(&base)?;
    for (k, v) in &w.options {
        let key = k.replace('-', "_");
        if !table.contains_key(&key) {
            return Err(usage(format!(
                "unknown workload option '{k}'{}",
                crate::error::suggestion(&key, table.keys().map(String::as_str))
            )));
        }
        table.insert(key, v.clone());
    }
    let o: OltpOptions = table
        .try_into()
        .map_err(|e: toml::de::Error| usage(format!("workload options: {}", e.message())))?;
    o.validate()?;
    Ok(o)
}

impl Kind for Sysbench {
    fn mistakes(&self, w: &WorkloadStep, ctx: &Context) -> Vec<String> {
        let mut m = super::foreign_keys(w, &[]);
        m.extend(super::thread_mistakes(w, ctx));
        if let Err(e) = options(w, ctx) {
            m.push(crate::error::one_line(&e));
        }
        m
    }

    fn cells(&self, w: &WorkloadStep, ctx: &Context) -> Vec<(String, u32)> {
        super::cells_per_thread_count(w, ctx)
    }

    fn runs(&self, w: &WorkloadStep, ctx: &Context) -> Result<Runs> {
        Ok(Runs::Transactions(sysbench_workload(
            &w.workload,
            &options(w, ctx)?,
        )?))
    }

    fn cost_labels(&self, w: &WorkloadStep, ctx: &Context) -> Vec<String> {
        let label = w.label();
        if ctx.cost_selects(&label) {
            vec![label]
        } else {
            Vec::new()
        }
    }

    fn counted(&self, w: &WorkloadStep, ctx: &Context) -> Result<Counted> {
        let workload = sysbench_workload(&w.workload, &options(w, ctx)?)?;
        Ok(Counted::Transactions(vec![(w.label(), workload)]))
    }

    fn in_order(&self, _w: &WorkloadStep) -> Option<String> {
        None
    }

    fn connections(&self, w: &WorkloadStep, ctx: &Context) -> u32 {
        ctx.threads_of(w).into_iter().max().unwrap_or(1)
    }

    fn turn_seconds(&self, w: &WorkloadStep, ctx: &Context, cell_overhead: f64) -> f64 {
        super::cells_seconds(w, ctx, cell_overhead)
    }

    fn data(&self, w: &WorkloadStep, ctx: &Context) -> Result<Data> {
        Ok(Data {
            oltp: Some(options(w, ctx)?),
            pgbench_scale: None,
        })
    }

    fn refused_by(
        &self,
        _w: &WorkloadStep,
        _dialect: crate::connection::Dialect,
    ) -> Option<String> {
        None
    }
}
