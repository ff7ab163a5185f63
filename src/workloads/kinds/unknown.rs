//! A `workload` psbench does not know: its one mistake names the nearest known one. A study
//! with it never runs, so it measures nothing.

use super::{Context, Counted, Data, Kind, Runs};
use crate::error::usage;
use crate::results::study::WorkloadStep;
use anyhow::Result;

pub struct Unknown;

fn refused(w: &WorkloadStep) -> anyhow::Error {
    let known = super::known_names();
    usage(format!(
        "unknown workload '{}'{} (known: {})",
        w.workload,
        crate::error::suggestion(&w.workload, known.iter().copied()),
        known.join(", ")
    ))
}

impl Kind for Unknown {
    fn mistakes(&self, w: &WorkloadStep, _ctx: &Context) -> Vec<String> {
        vec![refused(w).to_string()]
    }

    fn cells(&self, _w: &WorkloadStep, _ctx: &Context) -> Vec<(String, u32)> {
        Vec::new()
    }

    fn runs(&self, w: &WorkloadStep, _ctx: &Context) -> Result<Runs> {
        Err(refused(w))
    }

    fn cost_labels(&self, _w: &WorkloadStep, _ctx: &Context) -> Vec<String> {
        Vec::new()
    }

    fn counted(&self, w: &WorkloadStep, _ctx: &Context) -> Result<Counted> {
        Err(refused(w))
    }

    fn in_order(&self, _w: &WorkloadStep) -> Option<String> {
        None
    }

    fn connections(&self, _w: &WorkloadStep, _ctx: &Context) -> u32 {
        0
    }

    fn turn_seconds(&self, _w: &WorkloadStep, _ctx: &Context, _cell_overhead: f64) -> f64 {
        0.0
    }

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
