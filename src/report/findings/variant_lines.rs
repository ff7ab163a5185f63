//! The first Findings: one line per compared variant with what each measure says about it —
//! cost (exact), server CPU per transaction and throughput, each with its verdict — so that a
//! reader sees at once which measure resolved the change and which could not.

use crate::report::cells::slots;
use crate::report::findings::question;
use crate::report::subject::{Pair, Subject};
use crate::report::tables::cost::{self, CostRow};
use crate::report::tables::measurements::compare_tps;
use crate::report::tables::relative_cpu::{compare_cpu, signed_change, Side};
use crate::stats::{rounds_to_resolve, Comparison, Verdict, MIN_ROUNDS};

/// One (step, threads) comparison, with its caveat marks (findings::marks); `threads` 0
/// stands for every throughput cell pooled.
struct At {
    step: String,
    threads: u32,
    c: Comparison,
    marks: String,
}

impl At {
    fn place(&self) -> String {
        if self.threads == 0 {
            return self.step.clone();
        }
        format!(
            "{}, {} thread{}",
            self.step,
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
    }
}

fn width(c: &Comparison) -> f64 {
    let w = c.high.ln() - c.low.ln();
    if w.is_finite() {
        w
    } else {
        f64::INFINITY
    }
}

/// The comparison that says the most: the largest called change, else the narrowest interval.
fn most_telling(all: Vec<At>) -> Option<At> {
    let (calls, rest): (Vec<At>, Vec<At>) = all.into_iter().partition(|a| a.c.verdict.called());
    if !calls.is_empty() {
        return calls
            .into_iter()
            .max_by(|a, b| a.c.ratio.ln().abs().total_cmp(&b.c.ratio.ln().abs()));
    }
    rest.into_iter()
        .min_by(|a, b| width(&a.c).total_cmp(&width(&b.c)))
}

/// What one measure says: its largest called change, or that it is within the threshold, or
/// that it is not resolved and how many rounds would resolve it.
fn clause(what: &str, best: Option<At>, threshold: f64) -> Option<String> {
    let a = best?;
    let tpct = format!("{:.0}%", threshold * 100.0);
    let text = if a.c.rounds < MIN_ROUNDS {
        format!(
            "{what} not resolved here ({}: fewer than 3 rounds)",
            a.place()
        )
    } else if a.c.verdict.called() {
        format!("{what} {} ({})", signed_change(&a.c), a.place())
    } else if a.c.verdict == Verdict::Within {
        format!(
            "{what} within ±{tpct} ({}: {})",
            a.place(),
            signed_change(&a.c)
        )
    } else {
        let would = match rounds_to_resolve(a.c.spread, threshold) {
            Some(n) => format!(", about {n} rounds would resolve a {tpct} change"),
            None => String::new(),
        };
        format!("{what} not resolved here ({}{would})", a.place())
    };
    Some(text + &a.marks)
}

fn comparisons(s: &Subject, p: &Pair, f: impl Fn(&str, u32) -> Option<Comparison>) -> Vec<At> {
    slots(&s.results)
        .into_iter()
        .filter_map(|(step, threads)| {
            f(&step, threads).map(|c| At {
                marks: crate::report::findings::caveat_marks::marks(s, p, &step, threads),
                step,
                threads,
                c,
            })
        })
        .collect()
}

/// Server CPU per transaction over every throughput cell, as the table at a glance pools it
/// (one cell: that cell).
fn pooled_cpu(s: &Subject, p: &Pair) -> Option<At> {
    let cells = slots(&s.results);
    if let [(step, t)] = cells.as_slice() {
        return most_telling(comparisons(s, p, |st, u| {
            (st == step && u == *t)
                .then(|| compare_cpu(s, p, st, u, Side::Server))
                .flatten()
        }));
    }
    let c = crate::report::pooled::pooled(s, p, &cells, |c| c.resources.server_cpu_us_per_txn)?;
    let marks = cells
        .iter()
        .map(|(st, t)| crate::report::findings::caveat_marks::marks(s, p, st, *t))
        .fold(String::new(), |mut all, m| {
            for mark in m.split_whitespace() {
                if !all.contains(mark) {
                    all.push(' ');
                    all.push_str(mark);
                }
            }
            all
        });
    Some(At {
        step: format!("its {} cells pooled", cells.len()),
        threads: 0,
        c,
        marks,
    })
}

/// The pair's instruction counts: summed up per unit for a pair asked in the study's own
/// words (`asked`), else one clause per step of the cost table's rows.
fn cost_clause(s: &Subject, p: &Pair, rows: &[CostRow], asked: bool) -> Option<String> {
    if asked {
        let own = question::pair_rows(&s.results, p);
        return question::cost_summary(&own.iter().collect::<Vec<_>>());
    }
    let parts: Vec<String> = rows
        .iter()
        .filter(|r| r.variant == p.new && r.base.as_deref() == Some(p.base.as_str()))
        .filter_map(|r| {
            r.ratio.map(|q| {
                format!(
                    "{:+.1}% instructions per {} ({})",
                    (q - 1.0) * 100.0,
                    r.unit,
                    r.step
                )
            })
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// One line per pair: "default against ps_off: +8.7% instructions per transaction
/// (point_select); server CPU per transaction +6.0% [+2.0%, +10.0%] (point_select,
/// 2 threads); throughput not resolved here (…)". Pairs whose variants say what they mean
/// come first, named in those words, their counts summed up by unit.
/// A release of a sweep.
pub fn swept(s: &Subject, variant: &str) -> bool {
    s.results
        .study
        .variants
        .iter()
        .any(|v| v.name == variant && v.sweep.is_some())
}

pub fn lines(s: &Subject) -> Vec<String> {
    by_pair(s).into_iter().map(|(_, l)| l).collect()
}

/// The lines with the pair each is about.
pub fn by_pair(s: &Subject) -> Vec<(&Pair, String)> {
    let threshold = s.threshold();
    let rows = cost::rows(s);
    let labelled = s.pairs.iter().map(|p| (p, question::label(&s.results, p)));
    let (asked, rest): (Vec<_>, Vec<_>) = labelled.partition(|(_, label)| label.is_some());
    asked
        .into_iter()
        .chain(rest)
        .filter_map(|(p, label)| {
            let cpu = pooled_cpu(s, p);
            let tps = most_telling(comparisons(s, p, |st, t| compare_tps(s, p, st, t)));
            // A sweep's releases only counted have their steps in the sweep's own Findings.
            if swept(s, &p.new) && cpu.is_none() && tps.is_none() {
                return None;
            }
            let parts: Vec<String> = [
                cost_clause(s, p, &rows, label.is_some()),
                clause("server CPU per transaction", cpu, threshold),
                clause("throughput", tps, threshold),
            ]
            .into_iter()
            .flatten()
            .collect();
            let who = label.unwrap_or_else(|| format!("{} against {}", p.new, p.base));
            (!parts.is_empty()).then(|| (p, format!("{who}: {}.", parts.join("; "))))
        })
        .collect()
}
