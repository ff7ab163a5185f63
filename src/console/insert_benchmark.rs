//! `bench insert-benchmark`: the shared step sequence (ibench/), with each step printed and,
//! with `--json-dir`, written as a bench document; the summary table at the end.

use super::bench_document::{document, RunContext};
use super::ibench_text::{step_block, summary};
use crate::driver::RunReport;
use crate::ibench_sequence::{self, run_options, StepHost, Target};
use crate::results::insert_benchmark::StepResult;
use crate::results::write_atomically;
use crate::workloads::ibench::Step;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// The steps in order on `t`, printing each to `out`; the results in order.
pub fn run_sequence(
    t: &Target,
    steps: &[Step],
    seed: u64,
    json_dir: Option<&Path>,
    command_line: &[String],
    out: &mut dyn Write,
) -> Result<Vec<StepResult>> {
    writeln!(
        out,
        "Insert Benchmark at {}: {} client(s), X={} Y={} Z={} rows per table, query steps {} s, random seed {seed}\n",
        t.endpoint.describe(),
        t.opts.clients,
        t.opts.rows,
        t.opts.rows_i1,
        t.opts.rows_i2,
        t.opts.query_seconds
    )?;
    let mut printer = Printer {
        t,
        seed,
        json_dir,
        command_line,
        out,
        results: Vec::new(),
    };
    ibench_sequence::run_sequence(t, t.endpoint, steps, &mut printer)?;
    write!(printer.out, "{}", summary(&printer.results))?;
    Ok(printer.results)
}

struct Printer<'a> {
    t: &'a Target<'a>,
    seed: u64,
    json_dir: Option<&'a Path>,
    command_line: &'a [String],
    out: &'a mut dyn Write,
    results: Vec<StepResult>,
}

impl StepHost for Printer<'_> {
    fn cleanup_starting(&mut self, seconds: f64) {
        let _ = writeln!(
            self.out,
            "cleanup: ANALYZE TABLE, eager flushing, {seconds:.0} s pause"
        );
        let _ = self.out.flush();
    }

    fn cleanup_notes(&mut self, notes: &[String]) {
        for n in notes {
            let _ = writeln!(self.out, "  note: {n}");
        }
    }

    fn step(
        &mut self,
        index: usize,
        _step: &Step,
        measure: ibench_sequence::Measure,
    ) -> Result<bool> {
        let (result, report) = measure(self.seed.wrapping_add(index as u64))?;
        write!(self.out, "{}", step_block(&result))?;
        self.out.flush()?;
        if let Some(dir) = self.json_dir {
            write_step(dir, self.t, &result, &report, self.command_line)?;
        }
        self.results.push(result);
        Ok(true)
    }
}

/// The step's bench document: the sysbench workloads' format, plus the step's figures.
fn write_step(
    dir: &Path,
    t: &Target,
    result: &StepResult,
    report: &RunReport,
    command_line: &[String],
) -> Result<()> {
    let workload_options = serde_json::to_value(t.opts).context("recording the options")?;
    let ctx = RunContext {
        endpoint: t.endpoint,
        workload_options: &workload_options,
        command_line,
    };
    let mut doc = document(report, &run_options(t, report.threads, report.seed), &ctx);
    doc.insert_benchmark = Some(result.clone());
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    write_atomically(&dir.join(format!("{}.json", result.step)), &doc)
}
