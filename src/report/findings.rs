//! Findings: the answer first, in short sentences with their figures, generated from the
//! results (never written by hand): which variants cost more instructions than the base and
//! by how much, which throughput differences were called, and which were not resolved, with
//! the spread the rounds showed and the rounds that would resolve a change of the threshold.

use super::cells::{slots, throughput_variants};
use super::cost_table::{self, CostRow};
use super::grid::{pct_threshold, ratio, word, Sense, NOT_RESOLVED, WITHIN};
use super::saturation::{self, saturated};
use super::subject::{Pair, Subject};
use super::tables::{compare_tps, flagged};
use crate::results::COST_TOLERANCE;
use crate::stats::{rounds_to_resolve, Comparison, Verdict, MIN_ROUNDS};

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

/// Every finding, cost first, then throughput; empty when there is nothing to say.
pub fn findings(s: &Subject) -> Vec<String> {
    // A sweep's Findings lead: what changed between releases, and where.
    let mut out = super::sweep_table::findings(s);
    out.extend(super::variant_lines::lines(s));
    let rows: Vec<CostRow> = cost_table::rows(s)
        .into_iter()
        .filter(|r| !super::variant_lines::swept(s, &r.variant))
        .collect();
    out.extend(cost_findings(&rows));
    out.extend(throughput_findings(s));
    out.extend(super::relative_cpu::findings(s));
    out.extend(super::io_regime::findings(&s.results));
    out.extend(super::hosts::findings(s));
    out.extend(super::host::findings(s));
    out
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
        for r in &compared {
            out.push(cost_sentence(r));
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

fn cost_sentence(r: &CostRow) -> String {
    let (q, d) = (r.ratio.unwrap(), r.difference.unwrap());
    let base = r.base.as_deref().unwrap_or("the base");
    let ir = r.ir.unwrap();
    let base_ir = ir - d;
    let how = if (q - 1.0).abs() <= COST_TOLERANCE {
        format!("costs the same as {base} within {}", pct(COST_TOLERANCE))
    } else if q > 1.0 {
        format!(
            "costs {} more instructions per {} than {base}",
            pct(q - 1.0),
            r.unit
        )
    } else {
        format!(
            "costs {} fewer instructions per {} than {base}",
            pct(q - 1.0),
            r.unit
        )
    };
    let care = if r.ratio_unstable {
        " (a count did not repeat: read with care)"
    } else {
        ""
    };
    format!(
        "{}: {} {how}: {:.0} against {:.0} ({}){care}.",
        r.step,
        r.variant,
        ir,
        base_ir,
        cost_table::signed(d)
    )
}

/// A (step, threads) comparison of one pair.
struct Cmp {
    threads: u32,
    c: Comparison,
    flagged: bool,
    saturated: bool,
}

fn throughput_findings(s: &Subject) -> Vec<String> {
    let res = &s.results;
    let measured = throughput_variants(res);
    let threshold = s.threshold();
    let mut out = Vec::new();
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
                        flagged: flagged(res, &p.new, step, t) || flagged(res, &p.base, step, t),
                        saturated: saturated(res, &p.new, step, t)
                            || saturated(res, &p.base, step, t),
                    })
                })
                .collect();
            out.extend(pair_step(p, step, &cmps, threshold, res.study.rounds));
        }
    }
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

/// The sentences of one pair on one step: each called change, then what was resolved as no
/// change, then what was not resolved, with the spread and the rounds it would take.
fn pair_step(p: &Pair, step: &str, cmps: &[Cmp], threshold: f64, rounds: u32) -> Vec<String> {
    let mut out = Vec::new();
    let care = |c: &Cmp| {
        if c.flagged {
            "; flagged rounds enter (see Validity)"
        } else {
            ""
        }
    };
    // Each verdict in the words every table and file uses (grid::word).
    for x in cmps.iter().filter(|x| x.c.verdict.called()) {
        out.push(format!(
            "{}: {} is {} {} than {} at {}: {} over {} rounds{}{}.",
            step,
            p.new,
            pct(x.c.ratio - 1.0),
            word(x.c.verdict, Sense::Throughput),
            p.base,
            threads(x.threads),
            interval(&x.c),
            x.c.rounds,
            if x.saturated { saturation::CLAUSE } else { "" },
            care(x)
        ));
    }
    let within: Vec<&Cmp> = cmps
        .iter()
        .filter(|x| x.c.verdict == Verdict::Within)
        .collect();
    if !within.is_empty() {
        out.push(format!(
            "{step}: {} against {} {WITHIN} (±{}) at {}: {}{}.",
            p.new,
            p.base,
            pct_threshold(threshold),
            list(
                &within
                    .iter()
                    .map(|x| threads(x.threads))
                    .collect::<Vec<_>>()
            ),
            list(&within.iter().map(|x| interval(&x.c)).collect::<Vec<_>>()),
            if within.iter().any(|x| x.flagged) {
                "; flagged rounds enter (see Validity)"
            } else {
                ""
            }
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
                ", and about {n} rounds would resolve a {} change{beyond}; this study ran {rounds}",
                pct_threshold(threshold)
            )
        };
        out.push(format!(
            "{step}: {} against {} {NOT_RESOLVED} at {}: {}{spread}{would}{}.",
            p.new,
            p.base,
            list(&open.iter().map(|x| threads(x.threads)).collect::<Vec<_>>()),
            list(&open.iter().map(|x| interval(&x.c)).collect::<Vec<_>>()),
            if open.iter().any(|x| x.flagged) {
                "; flagged rounds enter (see Validity)"
            } else {
                ""
            }
        ));
    }
    let few: Vec<String> = cmps
        .iter()
        .filter(|x| x.c.verdict == Verdict::NotResolved && x.c.rounds < MIN_ROUNDS)
        .map(|x| threads(x.threads))
        .collect();
    if !few.is_empty() {
        out.push(format!(
            "{step}: {} against {} {NOT_RESOLVED} at {}: fewer than {MIN_ROUNDS} rounds.",
            p.new,
            p.base,
            list(&few)
        ));
    }
    out
}
