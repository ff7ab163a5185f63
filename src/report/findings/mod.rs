//! Findings: the answer first, in short sentences with their figures, generated from the
//! results (never written by hand), in three parts a reader takes in at once:
//!
//! - one line per variant against its base, every measure with its verdict;
//! - at most ten lines on what stands out: a sweep's changes, how the variants' costs range,
//!   the largest throughput changes called, server CPU resolving what throughput could not,
//!   the regimes, and what throughput could not resolve with the rounds that would;
//! - each caveat once, under the lines it applies to (flagged rounds ⚑, a saturated host †,
//!   the wake-up regime).
//!
//! Everything else stays in the tables.

pub mod caveat_marks;
pub mod frames_that_grew;
pub mod glance;
mod question;
pub mod variant_lines;

use crate::report::cells::{slots, throughput_variants};
use crate::report::findings::caveat_marks::{marks, SATURATED};
use crate::report::grid::{pct_threshold, ratio, word, Sense, FLAG, NOT_RESOLVED};
use crate::report::subject::{Pair, Subject};
use crate::report::tables::cost::{self, CostRow};
use crate::report::tables::measurements::compare_tps;
use crate::results::COST_TOLERANCE;
use crate::stats::{rounds_to_resolve, Comparison, Verdict, MIN_ROUNDS};

/// The most lines on what stands out.
pub const MOST_STANDING_OUT: usize = 10;

/// Percent with one decimal, without sign: 0.079 → "7.9%".
fn pct(x: f64) -> String {
    format!("{:.1}%", x.abs() * 100.0)
}

fn threads(t: u32) -> String {
    if t == 1 {
        "1 thread".into()
    } else {
        format!("{t} threads")
    }
}

/// The three parts of the Findings.
pub struct Findings {
    /// One line per variant against its base.
    pub per_variant: Vec<String>,
    /// At most [`MOST_STANDING_OUT`] lines, the most telling first.
    pub standing_out: Vec<String>,
    /// Each caveat once, for the marked lines above it.
    pub caveats: Vec<String>,
}

impl Findings {
    /// Every line, in order.
    pub fn all(&self) -> Vec<String> {
        self.per_variant
            .iter()
            .chain(&self.standing_out)
            .chain(&self.caveats)
            .cloned()
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.per_variant.is_empty() && self.standing_out.is_empty() && self.caveats.is_empty()
    }
}

/// Every finding, in order; empty when there is nothing to say.
pub fn findings(s: &Subject) -> Vec<String> {
    sections(s).all()
}

/// The Findings in their three parts.
pub fn sections(s: &Subject) -> Findings {
    let per_variant = crate::report::findings::variant_lines::lines(s);
    // What stands out, most telling first: a sweep's own answer, how costs range, the
    // largest throughput changes, CPU resolving what throughput did not, the regimes, then
    // what could not be resolved (the fewest rounds needed first).
    let rows: Vec<CostRow> = cost::rows(s)
        .into_iter()
        .filter(|r| !crate::report::findings::variant_lines::swept(s, &r.variant))
        .collect();
    let tps = throughput_findings(s);
    let mut standing_out = crate::report::tables::sweep::findings(s);
    standing_out.extend(crate::report::published::findings(s));
    standing_out.extend(cost_findings(&rows));
    standing_out.extend(tps.called.into_iter().map(|(_, l)| l));
    standing_out.extend(crate::report::tables::relative_cpu::findings(s));
    standing_out.extend(crate::report::tables::io_regime::findings(&s.results));
    standing_out.extend(crate::report::tables::shard_hosts::findings(s));
    standing_out.extend(tps.open.into_iter().map(|(_, l)| l));
    standing_out.truncate(MOST_STANDING_OUT);
    let shown = || per_variant.iter().chain(&standing_out);
    let mut caveats = Vec::new();
    if shown().any(|l| l.contains(FLAG)) {
        caveats.push(format!(
            "{FLAG} Rounds with validity flags (or failed rounds) enter the figures so marked: see Validity."
        ));
    }
    if shown().any(|l| l.contains(SATURATED)) {
        caveats.push(format!(
            "{SATURATED} The host was saturated where so marked: server and client shared every CPU, so throughput there measures the host as much as the server."
        ));
    }
    caveats.extend(crate::report::tables::host::findings(s));
    Findings {
        per_variant,
        standing_out,
        caveats,
    }
}

fn cost_findings(rows: &[CostRow]) -> Vec<String> {
    let mut out = Vec::new();
    let mut steps: Vec<&str> = Vec::new();
    for r in rows {
        if !steps.contains(&r.step.as_str()) {
            steps.push(&r.step);
        }
    }
    for step in steps {
        let of_step: Vec<&CostRow> = rows.iter().filter(|r| r.step == step).collect();
        let mut compared: Vec<&CostRow> = of_step
            .iter()
            .copied()
            .filter(|r| r.ratio.is_some())
            .collect();
        // Most expensive first: the reader's first question.
        compared.sort_by(|a, b| b.ratio.unwrap().total_cmp(&a.ratio.unwrap()));
        let more: Vec<&&CostRow> = compared
            .iter()
            .filter(|r| r.ratio.unwrap() > 1.0 + COST_TOLERANCE)
            .collect();
        if compared.len() > 2 {
            let unit = &compared[0].unit;
            let range = match (more.first(), more.last()) {
                (Some(hi), Some(lo)) if more.len() > 1 => format!(
                    ", from +{} ({}) to +{} ({})",
                    pct(lo.ratio.unwrap() - 1.0),
                    lo.variant,
                    pct(hi.ratio.unwrap() - 1.0),
                    hi.variant
                ),
                (Some(only), _) => {
                    format!(", {} by +{}", only.variant, pct(only.ratio.unwrap() - 1.0))
                }
                _ => String::new(),
            };
            out.push(count_sentence(step, unit, &compared, more.len(), &range));
        }
        for r in of_step.iter().filter(|r| r.ir.is_none()) {
            out.push(format!(
                "{step}: the cost of {} could not be measured (see Validity).",
                r.variant
            ));
        }
    }
    out
}

/// How many of the variants compared on a step cost more than their base: against one base by
/// name, or, when each variant has its own (two documents compared), against "its base".
fn count_sentence(
    step: &str,
    unit: &str,
    compared: &[&CostRow],
    more: usize,
    range: &str,
) -> String {
    let bases: Vec<&str> = compared.iter().filter_map(|r| r.base.as_deref()).collect();
    let one_base = bases.windows(2).all(|w| w[0] == w[1]);
    let n = compared.len();
    let within = pct(COST_TOLERANCE);
    match (one_base, bases.first()) {
        (true, Some(base)) if more == 0 => format!(
            "{step}: none of {n} variants costs more instructions per {unit} than {base} (beyond {within})."
        ),
        (true, Some(base)) => format!(
            "{step}: {more} of {n} variants cost more instructions per {unit} than {base}{range}."
        ),
        _ if more == 0 => format!(
            "{step}: {n} variants compared each with its own base; none costs more instructions per {unit} (beyond {within})."
        ),
        _ => format!(
            "{step}: {n} variants compared each with its own base; {more} cost more instructions per {unit}{range}."
        ),
    }
}

/// A (step, threads) comparison of one pair, with its caveat marks.
struct Cmp {
    threads: u32,
    c: Comparison,
    marks: String,
}

/// The throughput sentences that stand out: each change called (with its size, largest
/// first), and what was not resolved (with the rounds that would, fewest first).
struct Throughput {
    called: Vec<(f64, String)>,
    open: Vec<(usize, String)>,
}

fn throughput_findings(s: &Subject) -> Throughput {
    let res = &s.results;
    let measured = throughput_variants(res);
    let threshold = s.threshold();
    let mut out = Throughput {
        called: Vec::new(),
        open: Vec::new(),
    };
    let mut steps: Vec<String> = Vec::new();
    for (step, _) in slots(res) {
        if !steps.contains(&step) {
            steps.push(step);
        }
    }
    for p in s
        .pairs
        .iter()
        .filter(|p| measured.contains(&p.new) && measured.contains(&p.base))
    {
        for step in &steps {
            let cmps: Vec<Cmp> = slots(res)
                .into_iter()
                .filter(|(st, _)| st == step)
                .filter_map(|(_, t)| {
                    compare_tps(s, p, step, t).map(|c| Cmp {
                        threads: t,
                        c,
                        marks: marks(s, p, step, t),
                    })
                })
                .collect();
            pair_step(p, step, &cmps, threshold, res.study.rounds, &mut out);
        }
    }
    out.called.sort_by(|a, b| b.0.total_cmp(&a.0));
    out.open.sort_by_key(|(n, _)| *n);
    out
}

fn interval(c: &Comparison) -> String {
    format!("{} [{}, {}]", ratio(c.ratio), ratio(c.low), ratio(c.high))
}

fn list(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// The caveat marks of several comparisons, each once.
fn all_marks(cmps: &[&Cmp]) -> String {
    let mut m = String::new();
    for mark in [FLAG, SATURATED] {
        if cmps.iter().any(|x| x.marks.contains(mark)) {
            m.push(' ');
            m.push_str(mark);
        }
    }
    m
}

/// The sentences of one pair on one step: each called change, then what was not resolved,
/// with the spread and the rounds it would take. What was resolved as no change stays in the
/// tables (the variant's own line says it).
fn pair_step(
    p: &Pair,
    step: &str,
    cmps: &[Cmp],
    threshold: f64,
    rounds: u32,
    out: &mut Throughput,
) {
    // Each verdict in the words every table and file uses (grid::word).
    for x in cmps.iter().filter(|x| x.c.verdict.called()) {
        out.called.push((
            x.c.ratio.ln().abs(),
            format!(
                "{}: {} is {} {} than {} at {}: {} over {} rounds{}.",
                step,
                p.new,
                pct(x.c.ratio - 1.0),
                word(x.c.verdict, Sense::Throughput),
                p.base,
                threads(x.threads),
                interval(&x.c),
                x.c.rounds,
                x.marks
            ),
        ));
    }
    let open: Vec<&Cmp> = cmps
        .iter()
        .filter(|x| x.c.verdict == Verdict::NotResolved && x.c.rounds >= MIN_ROUNDS)
        .collect();
    if !open.is_empty() {
        let spreads: Vec<f64> = open
            .iter()
            .map(|x| x.c.spread)
            .filter(|v| v.is_finite())
            .collect();
        let needed: Vec<Option<usize>> = open
            .iter()
            .map(|x| rounds_to_resolve(x.c.spread, threshold))
            .collect();
        let lo = spreads.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = spreads.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let spread = if spreads.is_empty() {
            String::new()
        } else if (hi - lo) < 0.0005 {
            format!("; the rounds' ratios spread by {} (sd)", pct(hi))
        } else {
            format!(
                "; the rounds' ratios spread by {}–{} (sd)",
                pct(lo),
                pct(hi)
            )
        };
        let known: Vec<usize> = needed.iter().flatten().copied().collect();
        let would = if known.is_empty() {
            String::new()
        } else {
            let (a, b) = (known.iter().min().unwrap(), known.iter().max().unwrap());
            let n = if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            };
            let beyond = if known.len() < needed.len() {
                " (more than 1,000 for some)"
            } else {
                ""
            };
            format!(
                ", and about {n} rounds would resolve a {} change{beyond}; this study ran {rounds} (`psbench run --resume DIR --rounds N` adds rounds)",
                pct_threshold(threshold)
            )
        };
        out.open.push((
            known.iter().min().copied().unwrap_or(usize::MAX),
            format!(
                "{step}: {} against {} {NOT_RESOLVED} at {}: {}{spread}{would}{}.",
                p.new,
                p.base,
                list(&open.iter().map(|x| threads(x.threads)).collect::<Vec<_>>()),
                list(&open.iter().map(|x| interval(&x.c)).collect::<Vec<_>>()),
                all_marks(&open)
            ),
        ));
    }
    let few: Vec<&Cmp> = cmps
        .iter()
        .filter(|x| x.c.verdict == Verdict::NotResolved && x.c.rounds < MIN_ROUNDS)
        .collect();
    if !few.is_empty() {
        out.open.push((
            usize::MAX,
            format!(
                "{step}: {} against {} {NOT_RESOLVED} at {}: fewer than {MIN_ROUNDS} rounds{}.",
                p.new,
                p.base,
                list(&few.iter().map(|x| threads(x.threads)).collect::<Vec<_>>()),
                all_marks(&few)
            ),
        ));
    }
}
