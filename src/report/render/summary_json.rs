//! summary.json: the report's answers for scripts, small enough to read whole: per variant
//! and step, the cost ratio to its base, and per thread count the throughput and server CPU
//! ratios with their 95% intervals, each with the verdict words the tables use, and the flags
//! of the rounds behind them.

use crate::report::cells::{rounds, steps as throughput_steps, threads_of};
use crate::report::grid::{word, Sense};
use crate::report::subject::{Pair, Subject};
use crate::report::tables::cost::{self, CostRow};
use crate::report::tables::measurements::{compare_tps, flag_name};
use crate::report::tables::relative_cpu::{compare_cpu, Side};
use crate::results::{StudyResults, COST_TOLERANCE};
use crate::stats::{Comparison, Verdict};
use anyhow::{Context, Result};
use serde::Serialize;

pub const FILE: &str = "summary.json";

#[derive(Serialize)]
pub struct Summary {
    pub study: String,
    pub base: Option<String>,
    pub psbench_version: String,
    /// Every cell of the study measured (a study stopped half-way is not).
    pub complete: bool,
    /// Where a study still running stands ("running: round 2 of 3, about 3 min left").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<String>,
    /// The smallest relative change called.
    pub threshold: f64,
    pub variants: Vec<VariantSummary>,
    /// The Findings after the variants' own lines: what stands out, then the caveats.
    pub standing_out: Vec<String>,
    pub caveats: Vec<String>,
    /// How the figures carried from published studies came out (studies that carry some).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<crate::report::published::Counts>,
}

#[derive(Serialize)]
pub struct VariantSummary {
    pub variant: String,
    pub base: String,
    /// The variant's line of the Findings, as the report words it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<String>,
    pub steps: Vec<StepSummary>,
}

#[derive(Serialize)]
pub struct StepSummary {
    pub step: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<ThreadsSummary>,
}

/// Instructions under callgrind per unit of work, against the base's.
#[derive(Serialize)]
pub struct Cost {
    /// What the instructions are counted per: transaction, row, query.
    pub per: String,
    pub instructions: Option<f64>,
    pub base_instructions: Option<f64>,
    pub ratio: Option<f64>,
    pub verdict: Option<&'static str>,
    pub flags: Vec<&'static str>,
}

#[derive(Serialize)]
pub struct ThreadsSummary {
    pub threads: u32,
    pub throughput: Option<Ratio>,
    pub server_cpu: Option<Ratio>,
    pub flags: Vec<&'static str>,
}

/// new / base with its 95% interval and verdict.
#[derive(Serialize)]
pub struct Ratio {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    pub rounds: usize,
    pub verdict: &'static str,
}

fn ratio(c: Comparison, sense: Sense) -> Ratio {
    Ratio {
        ratio: c.ratio,
        low: c.low,
        high: c.high,
        rounds: c.rounds,
        verdict: word(c.verdict, sense),
    }
}

fn cost(r: CostRow) -> Cost {
    let verdict = r.ratio.map(|q| {
        let v = if (q - 1.0).abs() <= COST_TOLERANCE {
            Verdict::Within
        } else if q > 1.0 {
            Verdict::Above
        } else {
            Verdict::Below
        };
        word(v, Sense::Cost)
    });
    let mut flags = Vec::new();
    if r.ir.is_none() {
        flags.push("failed");
    }
    if r.unstable || r.ratio_unstable {
        flags.push("unstable");
    }
    Cost {
        per: r.unit,
        instructions: r.ir,
        base_instructions: r.ir.zip(r.difference).map(|(ir, d)| ir - d),
        ratio: r.ratio,
        verdict,
        flags,
    }
}

/// The flags of a variant's rounds at a (step, threads), as the Validity table names them,
/// and "failed" when a round failed.
fn flags(res: &StudyResults, variant: &str, step: &str, threads: u32) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for c in rounds(res, variant, step, threads) {
        let names = c.flags.iter().map(|f| flag_name(*f));
        for n in names.chain((!c.ok).then_some("failed")) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

fn step_summary(s: &Subject, p: &Pair, step: &str) -> Option<StepSummary> {
    let res = &s.results;
    let cost = res
        .cost_for(&p.new, step)
        .map(|c| cost(cost::row(res, step, c, Some(&p.base))));
    let threads: Vec<ThreadsSummary> = threads_of(res, step)
        .into_iter()
        .filter(|t| rounds(res, &p.new, step, *t).next().is_some())
        .map(|t| ThreadsSummary {
            threads: t,
            throughput: compare_tps(s, p, step, t).map(|c| ratio(c, Sense::Throughput)),
            server_cpu: compare_cpu(s, p, step, t, Side::Server).map(|c| ratio(c, Sense::Cost)),
            flags: flags(res, &p.new, step, t),
        })
        .collect();
    (cost.is_some() || !threads.is_empty()).then(|| StepSummary {
        step: step.to_string(),
        cost,
        threads,
    })
}

pub fn summary(s: &Subject) -> Summary {
    let res = &s.results;
    let mut steps = throughput_steps(res);
    for st in cost::steps(res) {
        if !steps.contains(&st) {
            steps.push(st);
        }
    }
    let lines = crate::report::findings::variant_lines::by_pair(s);
    let findings = crate::report::findings::sections(s);
    Summary {
        study: res.study.name.clone(),
        base: res.study.base.clone().or_else(|| {
            (s.sources.len() == 1)
                .then(|| res.study.variants.first().map(|v| v.name.clone()))
                .flatten()
        }),
        psbench_version: res.tool_version.clone(),
        complete: s.sources.iter().all(|x| x.finished_unix.is_some()),
        running: s.running.clone(),
        threshold: res.study.threshold,
        variants: s
            .pairs
            .iter()
            .map(|p| VariantSummary {
                variant: p.new.clone(),
                base: p.base.clone(),
                finding: lines.iter().find(|(q, _)| *q == p).map(|(_, l)| l.clone()),
                steps: steps
                    .iter()
                    .filter_map(|st| step_summary(s, p, st))
                    .collect(),
            })
            .filter(|v| !v.steps.is_empty())
            .collect(),
        standing_out: findings.standing_out,
        caveats: findings.caveats,
        published: crate::report::published::counts(s),
    }
}

/// summary.json's text: one line, to stay small for a study of many variants.
pub fn render(s: &Subject) -> Result<String> {
    Ok(serde_json::to_string(&summary(s)).context("writing summary.json")? + "\n")
}
