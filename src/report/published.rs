//! This study's figures beside those a published study reported (`[[published]]` in the study
//! file): per claim, variant and step, the published throughput new / base, the throughput
//! measured here, and the throughput the instruction counts predict — the base's instructions
//! per unit over the variant's, which is what a CPU-bound step gains from a shorter path — with
//! whether the instructions agree with the published figure.

use super::cost_table::{self, CostRow};
use super::grid::{column, label, ratio, Change, Kind, Table, Value};
use super::subject::{Pair, Subject};
use super::tables::compare_tps;
use crate::results::published::Published;
use crate::stats::Comparison;

/// How far a prediction may lie outside a published figure and still agree with it: the
/// published figures are approximate ("~1.07×").
pub const AGREE: f64 = 0.03;

/// A row with its prediction.
type Counted<'a, 'b> = &'b (&'b Row<'a>, f64);

/// One variant on one step of one claim.
struct Row<'a> {
    claim: &'a Published,
    pair: Pair,
    step: &'a str,
    /// Base instructions / variant instructions.
    predicted: Option<f64>,
    measured: Option<Comparison>,
}

fn rows(s: &Subject) -> Vec<Row<'_>> {
    let res = &s.results;
    let costs: Vec<CostRow> = cost_table::rows(s);
    let ir = |v: &str, step: &str| {
        costs
            .iter()
            .find(|r| r.variant == v && r.step == step)
            .and_then(|r| r.ir)
    };
    let mut out = Vec::new();
    for claim in &res.study.published {
        let base = claim
            .base
            .clone()
            .unwrap_or_else(|| res.study.base_variant().to_string());
        // A variant this run left out (--full only) has nothing to set beside the figure.
        let present = |v: &str| res.study.variants.iter().any(|x| x.name == v);
        for v in claim.variants.iter().filter(|v| present(v)) {
            let pair = Pair {
                new: v.clone(),
                base: base.clone(),
            };
            for step in &claim.steps {
                let predicted = ir(&base, step).zip(ir(v, step)).map(|(b, n)| b / n);
                let threads = res
                    .cells
                    .iter()
                    .filter(|c| &c.key.step == step)
                    .map(|c| c.key.threads)
                    .min();
                let measured = threads.and_then(|t| compare_tps(s, &pair, step, t));
                out.push(Row {
                    claim,
                    pair: pair.clone(),
                    step,
                    predicted,
                    measured,
                });
            }
        }
    }
    out
}

fn agrees(claim: &Published, predicted: f64) -> bool {
    let (lo, hi) = claim.range();
    predicted >= lo * (1.0 - AGREE) && predicted <= hi * (1.0 + AGREE)
}

fn figure(claim: &Published) -> String {
    match claim.range() {
        (lo, hi) if lo == hi => format!("{lo:.2}×"),
        (lo, hi) => format!("{lo:.2}–{hi:.2}×"),
    }
}

/// The table beside the published figures; none for a study that names none.
pub fn table(s: &Subject) -> Option<Table> {
    let rows = rows(s);
    if rows.is_empty() {
        return None;
    }
    let values = rows
        .iter()
        .map(|r| {
            vec![
                Value::Text(r.claim.claim.clone()),
                Value::Text(r.pair.label()),
                Value::Text(r.step.to_string()),
                Value::Text(figure(r.claim)),
                r.measured.map_or(Value::Missing("—".into()), |c| {
                    Value::Change(Change::throughput(c))
                }),
                r.predicted.map_or(Value::Missing("—".into()), Value::Ratio),
                Value::Text(match r.predicted {
                    Some(p) if agrees(r.claim, p) => "agree".into(),
                    Some(_) => "do not agree".into(),
                    None => "not counted".into(),
                }),
            ]
        })
        .collect();
    Some(Table {
        id: "published".into(),
        title: "Beside the published figures".into(),
        note: format!(
            "Each figure the study file quotes from a published study, beside this study's: the throughput measured here (new / base, at the step's lowest thread count) and the throughput the instruction counts predict (the base's instructions per unit over the variant's: what a CPU-bound step gains from a shorter path). The instructions agree when their prediction lies within the published figure ±{:.0}% (published figures are approximate).",
            AGREE * 100.0
        ),
        columns: vec![
            label("published"),
            label("variant / base"),
            label("step"),
            column("published throughput", Kind::Number),
            column("throughput here", Kind::Change),
            column("instructions predict", Kind::Number),
            label("instructions"),
        ],
        rows: values,
        legend: Vec::new(),
        when_empty: String::new(),
    })
}

/// One sentence per claim: the published figure, what the instructions predict here on its
/// steps, and where they agree and where they do not, with why.
pub fn findings(s: &Subject) -> Vec<String> {
    let rows = rows(s);
    let mut out = Vec::new();
    for claim in &s.results.study.published {
        let mine: Vec<&Row> = rows
            .iter()
            .filter(|r| std::ptr::eq(r.claim, claim))
            .collect();
        let counted: Vec<(&Row, f64)> = mine
            .iter()
            .filter_map(|r| r.predicted.map(|p| (*r, p)))
            .collect();
        if counted.is_empty() {
            continue;
        }
        let (lo, hi) = counted
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (_, p)| {
                (a.min(*p), b.max(*p))
            });
        let pred = if (hi - lo).abs() < 0.0005 {
            ratio(lo)
        } else {
            format!("{}–{}", ratio(lo), ratio(hi))
        };
        let (yes, no): (Vec<Counted>, Vec<Counted>) =
            counted.iter().partition(|(_, p)| agrees(claim, *p));
        let places = |rs: &[Counted]| {
            let mut v: Vec<String> = Vec::new();
            for (r, _) in rs {
                let at = format!("{} {}", r.pair.new, r.step);
                if !v.contains(&at) {
                    v.push(at);
                }
            }
            v.join(", ")
        };
        let verdict = match (yes.is_empty(), no.is_empty()) {
            (false, true) => "the instructions agree".to_string(),
            (true, _) => format!(
                "the instructions do not agree: path length accounts for {} of the published {}, so the rest of it is not the CPU's path length at this size (contention, IO, or the published data's size)",
                pred,
                figure(claim)
            ),
            (false, false) => format!(
                "the instructions agree on {}, not on {} (path length does not account for the published figure there)",
                places(&yes),
                places(&no)
            ),
        };
        out.push(format!(
            "{} ({}): published {} on {}; here the instructions predict {pred}; {verdict}.",
            claim.claim,
            claim.variants.join(", "),
            figure(claim),
            claim.steps.join(", ")
        ));
    }
    out
}
