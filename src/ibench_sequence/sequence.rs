//! The step sequence: the steps in order, the cleanup before the first query step that
//! follows a load step, each step's seed. What happens around each step (printing it and
//! writing its document, or probing it as a study's cell) is the caller's [`StepHost`].

use super::{cleanup, needs_cleanup, run_step, Target};
use crate::connection::Endpoint;
use crate::driver::RunReport;
use crate::results::insert_benchmark::StepResult;
use crate::workloads::ibench::Step;
use anyhow::Result;

/// One step, measured with the seed given.
pub type Measure<'a> = &'a dyn Fn(u64) -> Result<(StepResult, RunReport)>;

/// The caller's part of a sequence.
pub trait StepHost {
    /// The cleanup of `seconds` is about to start.
    fn cleanup_starting(&mut self, _seconds: f64) {}
    /// It ended, with what the reader must know.
    fn cleanup_notes(&mut self, _notes: &[String]) {}
    /// Run step `index` (from 0) by calling `measure` with its seed; false ends the sequence
    /// (the steps build on each other, so after a failed step the rest would measure tables
    /// in an unknown state).
    fn step(&mut self, index: usize, step: &Step, measure: Measure) -> Result<bool>;
}

/// The steps in order on `t`; the cleanup runs as `admin` (any database).
pub fn run_sequence(
    t: &Target,
    admin: &Endpoint,
    steps: &[Step],
    host: &mut dyn StepHost,
) -> Result<()> {
    t.opts.validate()?;
    let mut previous: Option<&Step> = None;
    for (i, step) in steps.iter().enumerate() {
        if needs_cleanup(previous, step) {
            let seconds = t.opts.cleanup_duration();
            host.cleanup_starting(seconds);
            let report = cleanup::perform(admin, t.opts.clients, seconds)?;
            host.cleanup_notes(&report.notes);
        }
        previous = Some(step);
        let measure = |seed: u64| run_step(t, step, seed);
        if !host.step(i, step, &measure)? {
            break;
        }
    }
    Ok(())
}
