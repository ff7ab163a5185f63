//! An Insert Benchmark entry of a study on a running variant: the shared step sequence
//! (ibench/), each step a probed cell written to the document as soon as it is measured,
//! the cleanup's notes kept, and the tables dropped at the end.

use super::cell::{self, Target};
use super::context::{cell_seed, RunContext};
use super::progress::Progress;
use crate::ibench_sequence::{self, Measure, StepHost};
use crate::results::study::WorkloadStep;
use crate::results::{CellKey, StudyResults};
use crate::server::Sandbox;
use crate::workloads::ibench::{schema, Step};
use crate::workloads::kinds::Sequence;
use anyhow::{Context, Result};

/// A study's entry whose steps run in order, as its kind gave them.
pub struct Entry<'a> {
    pub w: &'a WorkloadStep,
    pub sequence: Sequence,
}

/// Every step of the entry in order on fresh tables; a failed step ends the sequence.
pub fn run_entry(
    ctx: &RunContext,
    sb: &Sandbox,
    device: Option<&crate::probes::device::Device>,
    round: u32,
    variant: &str,
    entry: &Entry,
    res: &mut StudyResults,
) -> Result<()> {
    let (w, opts, steps) = (entry.w, &entry.sequence.options, &entry.sequence.steps);
    let endpoint = sb.tcp_endpoint();
    let admin = sb.admin_endpoint();
    let target = Target {
        endpoint: &endpoint,
        admin: &admin,
        server_pid: sb.pid().context("server not running")?,
        device,
        regime: None,
        idle_servers: &[],
    };
    let ib = ibench_sequence::Target {
        endpoint: &endpoint,
        opts,
        percentiles: &[],
    };
    let mut host = Cells {
        ctx,
        target: &target,
        entry: w,
        round,
        variant,
        clients: opts.clients,
        res,
    };
    let outcome = ibench_sequence::run_sequence(&ib, &admin, steps, &mut host);
    let _ = schema::drop_database(&admin);
    outcome
}

struct Cells<'a> {
    ctx: &'a RunContext<'a>,
    target: &'a Target<'a>,
    entry: &'a WorkloadStep,
    round: u32,
    variant: &'a str,
    clients: u32,
    res: &'a mut StudyResults,
}

impl Cells<'_> {
    fn progress(&self) -> &Progress {
        self.ctx.progress
    }
}

impl StepHost for Cells<'_> {
    fn cleanup_starting(&mut self, _seconds: f64) {
        self.progress().start(&format!(
            "round {} {}: Insert Benchmark cleanup",
            self.round + 1,
            self.variant
        ));
    }

    fn cleanup_notes(&mut self, notes: &[String]) {
        for n in notes {
            let note = format!(
                "round {} variant {}: Insert Benchmark cleanup: {n}",
                self.round + 1,
                self.variant
            );
            if !self.res.notes.contains(&note) {
                self.res.notes.push(note);
            }
        }
    }

    fn step(&mut self, _index: usize, step: &Step, measure: Measure) -> Result<bool> {
        let key = CellKey {
            round: self.round,
            variant: self.variant.to_string(),
            step: self.entry.sub_label(&step.name),
            threads: self.clients,
        };
        self.progress().start(&format!(
            "round {} {} {}",
            self.round + 1,
            self.variant,
            key.step
        ));
        let seed = cell_seed(self.res.seed, self.round, &key.step, self.clients);
        let measured = cell::probed(&key, &self.ctx.study.limits, None, self.target, || {
            let (result, report) = measure(seed)?;
            Ok(cell::Measured {
                throughput: result.throughput,
                ops: result.operations,
                report,
                insert_benchmark: Some(result),
            })
        });
        if measured.is_err() && crate::server::registry::stopping() {
            anyhow::bail!("stopped by a signal during {} {}", self.variant, key.step);
        }
        let go_on = measured.is_ok();
        let cell = measured.unwrap_or_else(|e| {
            let msg = format!("{e:#}");
            self.progress()
                .note(&format!("{} {} failed: {msg}", self.variant, key.step));
            cell::failed(key, msg)
        });
        // A step done before an interruption ran again (the steps after it need its tables);
        // its first result stands.
        if self.res.cell(&cell.key).is_none() {
            self.res.cells.push(cell);
        }
        self.res.save(&self.ctx.req.out_dir)?;
        self.progress().done();
        Ok(go_on)
    }
}
