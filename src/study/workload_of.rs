//! A study's workload steps as workloads: sysbench's or pgbench's, with their options.

use super::file::{Study, WorkloadStep};
use crate::error::usage;
use crate::workloads::pgbench::{is_pgbench, PgbenchOptions, QueryMode};
use crate::workloads::{workload_by_name, Workload};
use anyhow::Result;

impl Study {
    /// pgbench's scale of the dataset: `dataset.pgbench_scale`, 1 by default.
    pub fn pgbench_scale(&self) -> u32 {
        self.dataset.pgbench_scale.unwrap_or(1)
    }

    /// A pgbench step's options: the dataset's scale, then the step's `query_mode`.
    pub fn pgbench_options(&self, w: &WorkloadStep) -> Result<PgbenchOptions> {
        let mut o = PgbenchOptions {
            scale: self.pgbench_scale(),
            ..PgbenchOptions::default()
        };
        if !is_pgbench(&w.workload) {
            return Ok(o);
        }
        for (k, v) in &w.options {
            match (k.replace('-', "_").as_str(), v.as_str()) {
                ("query_mode", Some("simple")) => o.query_mode = QueryMode::Simple,
                ("query_mode", Some("prepared")) => o.query_mode = QueryMode::Prepared,
                ("query_mode", _) => {
                    return Err(usage("query_mode is \"simple\" or \"prepared\""));
                }
                _ => {
                    return Err(usage(format!(
                        "unknown workload option '{k}' (pgbench's steps take query_mode; \
                         the scale is dataset.pgbench_scale)"
                    )))
                }
            }
        }
        Ok(o)
    }

    /// The workload of step `w`, sysbench's or pgbench's, with its options.
    pub fn workload_of(&self, w: &WorkloadStep) -> Result<Box<dyn Workload>> {
        workload_by_name(
            &w.workload,
            &self.workload_options(w)?,
            &self.pgbench_options(w)?,
        )
    }
}
