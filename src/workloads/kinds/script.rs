//! A step of the user's own scripts in pgbench's language (`workload = "script"`): a cell
//! per thread count on the study's dataset, each script a class with its own figures, and
//! cost mode counting each script's transactions apart.

use super::{Context, Counted, Data, Kind, Runs};
use crate::connection::Dialect;
use crate::error::usage;
use crate::results::study::WorkloadStep;
use crate::workloads::custom::{QueryMode, ScriptFile, ScriptOptions, ScriptWorkload};
use anyhow::Result;
use std::path::Path;

pub const SCRIPT: &str = "script";

pub struct Scripts;

/// The step's variables as pgbench's `-D NAME=VALUE` takes them.
pub fn vars(w: &WorkloadStep) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (k, v) in w.vars.iter().flatten() {
        let text = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                return Err(usage(format!(
                    "vars: '{k}' = {other} is not a string, number or boolean"
                )))
            }
        };
        out.push((k.clone(), text));
    }
    Ok(out)
}

/// The step's query mode: `simple` by default, as pgbench's.
pub fn mode(w: &WorkloadStep) -> Result<QueryMode> {
    QueryMode::parse(w.query_mode.as_deref().unwrap_or("simple"))
}

/// The step's scripts, read and parsed into its workload.
pub fn workload(w: &WorkloadStep) -> Result<ScriptWorkload> {
    let Some(args) = w.scripts.as_ref().filter(|s| !s.is_empty()) else {
        return Err(usage(
            "a script step names its scripts: scripts = [\"new_order.sql@3\", …]",
        ));
    };
    let files = args
        .iter()
        .map(|a| ScriptFile::read(a, Path::new("")))
        .collect::<Result<Vec<_>>>()?;
    let opts = ScriptOptions {
        mode: mode(w)?,
        vars: vars(w)?,
        per_statement: w.per_statement.unwrap_or(false),
        abort_on_failure: false,
    };
    ScriptWorkload::new(&w.label(), &files, opts)
}

/// The keys of other kinds a script step was given.
fn foreign(w: &WorkloadStep) -> Vec<String> {
    let mut m = super::foreign_keys(w, &["scripts", "vars", "query_mode", "per_statement"]);
    if !w.options.is_empty() {
        m.push("options are sysbench's: a script step takes scripts, vars and query_mode".into());
    }
    m
}

impl Kind for Scripts {
    fn mistakes(&self, w: &WorkloadStep, ctx: &Context) -> Vec<String> {
        let mut m = foreign(w);
        m.extend(super::thread_mistakes(w, ctx));
        if let Err(e) = workload(w) {
            m.push(crate::error::one_line(&e));
        }
        m
    }

    fn cells(&self, w: &WorkloadStep, ctx: &Context) -> Vec<(String, u32)> {
        super::cells_per_thread_count(w, ctx)
    }

    fn runs(&self, w: &WorkloadStep, _ctx: &Context) -> Result<Runs> {
        Ok(Runs::Transactions(Box::new(workload(w)?)))
    }

    /// A label per script: the step's own with one script, `STEP SCRIPT` with more.
    fn cost_labels(&self, w: &WorkloadStep, ctx: &Context) -> Vec<String> {
        if !ctx.cost_selects(&w.label()) {
            return Vec::new();
        }
        match workload(w) {
            Ok(wl) => wl.classes().to_vec(),
            Err(_) => vec![w.label()],
        }
    }

    fn counted(&self, w: &WorkloadStep, ctx: &Context) -> Result<Counted> {
        let wl = workload(w)?;
        let labels = self.cost_labels(w, ctx);
        Ok(Counted::Transactions(
            (0..wl.classes().len())
                .filter(|&i| labels.contains(&wl.classes()[i]))
                .map(|i| {
                    let one: Box<dyn crate::workloads::Workload> = Box::new(wl.only(i));
                    (wl.classes()[i].clone(), one)
                })
                .collect(),
        ))
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

    /// The dataset's own: its `sql` and `load`, and sysbench's tables where it sizes them.
    fn data(&self, _w: &WorkloadStep, _ctx: &Context) -> Result<Data> {
        Ok(Data::default())
    }

    fn refused_by(&self, w: &WorkloadStep, dialect: Dialect) -> Option<String> {
        ScriptWorkload::refused_on(mode(w).ok()?, dialect)
    }
}
