//! pgbench's built-in scripts on PostgreSQL: a cell per thread count on pgbench's tables at
//! the dataset's scale, in the entry's `query_mode`.

use super::{Context, Counted, Data, Kind, Runs};
use crate::error::usage;
use crate::results::study::WorkloadStep;
use crate::workloads::pgbench::{pgbench_workload, PgbenchOptions, QueryMode};
use anyhow::Result;

pub struct Pgbench;

/// The entry's options: the dataset's scale, then its `query_mode`.
fn options(w: &WorkloadStep, ctx: &Context) -> Result<PgbenchOptions> {
    let mut o = PgbenchOptions {
        scale: ctx.pgbench_scale,
        ..PgbenchOptions::default()
    };
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

impl Kind for Pgbench {
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
        Ok(Runs::Transactions(pgbench_workload(
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
        let workload = pgbench_workload(&w.workload, &options(w, ctx)?)?;
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
            oltp: None,
            pgbench_scale: Some(options(w, ctx)?.scale),
        })
    }

    fn refused_by(&self, w: &WorkloadStep, dialect: crate::connection::Dialect) -> Option<String> {
        (!dialect.supports_pgbench()).then(|| {
            format!(
                "workload '{}' is pgbench's and runs on PostgreSQL only (a variant's engine = \"postgres\")",
                w.label()
            )
        })
    }
}
