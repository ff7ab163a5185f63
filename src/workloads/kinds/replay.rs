//! A step replaying a captured log (`workload = "replay"`): one cell, a connection per
//! captured session, run whole on the data as the dataset (the dump taken when the capture
//! began) makes it. Each variant's turn starts from the dataset's own copy, so the replay is
//! the study's only step and is never cut into slices. Cost mode counts the instructions per
//! replayed statement on one connection.

use super::{Context, Counted, Data, Kind, Runs};
use crate::connection::Dialect;
use crate::error::usage;
use crate::results::study::WorkloadStep;
use crate::workloads::replay::{Capture, Pace, ReplayWorkload};
use anyhow::Result;
use std::sync::Arc;

pub const REPLAY: &str = "replay";

pub struct Replay;

/// The step's capture, read once.
fn capture(w: &WorkloadStep) -> Result<Arc<Capture>> {
    let Some(log) = w.log.as_deref() else {
        return Err(usage(
            "a replay step names its captured log: log = \"general.log\"",
        ));
    };
    Capture::read_shared(log)
}

/// The step's pace: `recorded` by default.
fn pace(w: &WorkloadStep) -> Result<Pace> {
    let pace = Pace::parse(w.pace.as_deref().unwrap_or("recorded"), w.speed)?;
    if pace == Pace::Fast && w.speed.is_some() {
        return Err(usage("speed goes with pace = \"recorded\""));
    }
    Ok(pace)
}

pub fn workload(w: &WorkloadStep) -> Result<ReplayWorkload> {
    Ok(ReplayWorkload::new(&w.label(), capture(w)?, pace(w)?))
}

fn sessions(w: &WorkloadStep) -> u32 {
    capture(w).map_or(1, |c| c.sessions.len() as u32)
}

impl Kind for Replay {
    fn mistakes(&self, w: &WorkloadStep, ctx: &Context) -> Vec<String> {
        let mut m = super::foreign_keys(w, &["log", "pace", "speed"]);
        if !w.options.is_empty() {
            m.push("options are sysbench's: a replay step takes log, pace and speed".into());
        }
        if w.threads.is_some() {
            m.push("a replay has a connection per captured session: it takes no threads".into());
        }
        if ctx.entries > 1 {
            m.push(
                "a replay changes the data it reads, so it is the study's only workload step"
                    .into(),
            );
        }
        if ctx.alternating {
            m.push(
                "a replay runs whole: it is not cut into slices (schedule = \"alternate\")".into(),
            );
        }
        for e in [capture(w).err(), pace(w).err()].into_iter().flatten() {
            m.push(crate::error::one_line(&e));
        }
        m
    }

    fn cells(&self, w: &WorkloadStep, _ctx: &Context) -> Vec<(String, u32)> {
        vec![(w.label(), sessions(w))]
    }

    fn runs(&self, w: &WorkloadStep, _ctx: &Context) -> Result<Runs> {
        Ok(Runs::Transactions(Box::new(workload(w)?)))
    }

    fn cost_labels(&self, w: &WorkloadStep, ctx: &Context) -> Vec<String> {
        if ctx.cost_selects(&w.label()) {
            vec![w.label()]
        } else {
            Vec::new()
        }
    }

    /// Every session's statements on one connection, session after session, each run once:
    /// the warm-up takes the log's first statements and each window the next ones, so that
    /// no write runs twice on the copy of the data.
    fn counted(&self, w: &WorkloadStep, ctx: &Context) -> Result<Counted> {
        if self.cost_labels(w, ctx).is_empty() {
            return Ok(Counted::Transactions(Vec::new()));
        }
        let one: Box<dyn crate::workloads::Workload> = Box::new(workload(w)?.on_one_connection());
        Ok(Counted::Transactions(vec![(w.label(), one)]))
    }

    fn in_order(&self, _w: &WorkloadStep) -> Option<String> {
        None
    }

    fn connections(&self, w: &WorkloadStep, _ctx: &Context) -> u32 {
        sessions(w)
    }

    /// The recorded span (divided by `speed`); as long again when fast, as a bound.
    fn turn_seconds(&self, w: &WorkloadStep, _ctx: &Context, cell_overhead: f64) -> f64 {
        let span = capture(w).ok().and_then(|c| c.span_s()).unwrap_or(0.0);
        let speed = match pace(w) {
            Ok(Pace::Recorded { speed }) => speed,
            _ => 1.0,
        };
        span / speed + cell_overhead
    }

    /// The dataset's own: the dump taken when the capture began, as `[dataset] sql`.
    fn data(&self, _w: &WorkloadStep, _ctx: &Context) -> Result<Data> {
        Ok(Data::default())
    }

    fn refused_by(&self, w: &WorkloadStep, dialect: Dialect) -> Option<String> {
        Capture::refused_on(capture(w).ok()?.format, dialect)
    }
}
