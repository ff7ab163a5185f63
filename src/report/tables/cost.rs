//! The cost-mode section: per step, the variants as rows sorted by instructions per unit of
//! work, each with its ratio to the base and the difference in instructions; unstable counts
//! are shown marked, and so is every ratio they enter.

use crate::report::grid::{column, label, Kind, Table, Value};
use crate::report::subject::{Pair, Subject};
use crate::results::{CostResult, StudyResults, COST_TOLERANCE, COST_WRITE_TOLERANCE};

/// One variant's cost on one step, against its base.
#[derive(Clone, Debug, PartialEq)]
pub struct CostRow {
    pub step: String,
    pub variant: String,
    /// "transaction", "row", "query": what the instructions are counted per.
    pub unit: String,
    /// `None` when the measurement failed.
    pub ir: Option<f64>,
    pub unstable: bool,
    /// The variant it is compared with; `None` for a base (or a variant with no pair).
    pub base: Option<String>,
    /// ir / base's ir, and ir − base's ir, when both were measured.
    pub ratio: Option<f64>,
    pub difference: Option<f64>,
    /// Either side's count was unstable.
    pub ratio_unstable: bool,
}

/// What a cost result counts its instructions per.
pub fn unit(c: &CostResult) -> &'static str {
    c.unit.name()
}

fn ok(c: Option<&CostResult>) -> Option<&CostResult> {
    c.filter(|c| c.ok)
}

/// The steps with cost results, in the order they were measured.
pub fn steps(res: &StudyResults) -> Vec<String> {
    let mut steps: Vec<String> = Vec::new();
    for c in &res.cost {
        if !steps.contains(&c.step) {
            steps.push(c.step.clone());
        }
    }
    steps
}

/// Cost result `c` on `step` as a row against `base` (none for a base): ratio and difference
/// when both were measured.
pub fn row(res: &StudyResults, step: &str, c: &CostResult, base: Option<&str>) -> CostRow {
    let b = base.and_then(|b| ok(res.cost_for(b, step)));
    let me = ok(Some(c));
    let both = me.zip(b).filter(|(_, b)| b.ir_per_txn > 0.0);
    CostRow {
        step: step.to_string(),
        variant: c.variant.clone(),
        unit: unit(c).to_string(),
        ir: me.map(|c| c.ir_per_txn),
        unstable: c.unstable,
        base: base.map(str::to_string),
        ratio: both.map(|(n, b)| n.ir_per_txn / b.ir_per_txn),
        difference: both.map(|(n, b)| n.ir_per_txn - b.ir_per_txn),
        ratio_unstable: both.is_some_and(|(n, b)| n.unstable || b.unstable),
    }
}

/// Every cost result as a row, grouped by step in the study's order and sorted by cost within
/// a step (failed ones last).
pub fn rows(s: &Subject) -> Vec<CostRow> {
    let res = &s.results;
    let variants = crate::report::subject::variants(res);
    let base_of = |v: &str| -> Option<&Pair> { s.pairs.iter().find(|p| p.new == v) };
    let mut out = Vec::new();
    for step in &steps(res) {
        let mut of_step: Vec<CostRow> = variants
            .iter()
            .filter_map(|v| res.cost_for(v, step))
            .map(|c| row(res, step, c, base_of(&c.variant).map(|p| p.base.as_str())))
            .collect();
        of_step.sort_by(|a, b| match (a.ir, b.ir) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        out.extend(of_step);
    }
    out
}

/// An unstable count is shown, marked.
fn mark(v: Value, unstable: bool) -> Value {
    v.flagged_if(unstable)
}

/// Cost mode: a row per (step, variant), cheapest first within a step.
pub fn cost(s: &Subject) -> Table {
    let rows: Vec<Vec<Value>> = rows(s)
        .into_iter()
        .map(|r| {
            let ir = match r.ir {
                Some(x) => mark(Value::Number(x), r.unstable),
                None => Value::Missing("failed".into()),
            };
            let (ratio, diff) = match (r.ratio, r.difference, &r.base) {
                (Some(q), Some(d), _) => (
                    mark(Value::Ratio(q), r.ratio_unstable),
                    mark(Value::Text(signed(d)), r.ratio_unstable),
                ),
                (_, _, None) => (Value::Text("base".into()), Value::Text(String::new())),
                _ => (Value::Missing("—".into()), Value::Missing("—".into())),
            };
            vec![
                Value::Text(r.step),
                Value::Text(r.variant),
                Value::Text(r.unit),
                ir,
                ratio,
                diff,
            ]
        })
        .collect();
    Table {
        id: "cost".into(),
        title: "Cost mode: instructions per unit of work".into(),
        note: format!("Instructions under callgrind (user space, no contention) per transaction, per inserted or indexed row, or per query (the unit column; docs/cost-mode.md says how each is counted), cheapest first within a step. Ratio and difference against the base; counts that did not repeat within {:.1}% ({:.1}% for the two attempts of an Insert Benchmark write step) are marked unstable (see Validity). Path length, not contention: do not mix with throughput.", COST_TOLERANCE * 100.0, COST_WRITE_TOLERANCE * 100.0),
        columns: vec![
            label("step"),
            label("variant"),
            label("per"),
            column("instructions", Kind::Number),
            column("ratio to base", Kind::Ratio),
            column("difference", Kind::Number),
        ],
        rows,
        legend: Vec::new(),
        when_empty: "No cost-mode results.".into(),
    }
}

/// A difference in instructions with its sign: "+9920", "-310".
pub fn signed(d: f64) -> String {
    format!("{:+.0}", d)
}
