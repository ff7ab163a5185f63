//! The study's question in its own words: where both variants of a comparison say what they
//! stand for (`means`, e.g. "performance_schema compiled in but off" against "compiled out"),
//! the comparison's Findings line names them so and sums up its instruction counts by unit
//! ("+0.5% to +1.1% per row (l.i0, l.i1, l.i2)"). These lines open the Findings.

use crate::report::subject::Pair;
use crate::report::tables::cost::{self, CostRow};
use crate::results::{StudyResults, COST_TOLERANCE};

fn means<'a>(res: &'a StudyResults, variant: &str) -> Option<&'a str> {
    res.study
        .variants
        .iter()
        .find(|v| v.name == variant)
        .and_then(|v| v.means.as_deref())
}

/// "performance_schema compiled in but off (rel_ps_off) against performance_schema compiled
/// out (no_pfs)", when both variants say what they mean.
pub fn label(res: &StudyResults, p: &Pair) -> Option<String> {
    Some(format!(
        "{} ({}) against {} ({})",
        means(res, &p.new)?,
        p.new,
        means(res, &p.base)?,
        p.base
    ))
}

/// The pair's cost on every step both variants were counted on, in the steps' order: the
/// pair's own ratios, whichever base the cost table compares the new variant with.
pub fn pair_rows(res: &StudyResults, p: &Pair) -> Vec<CostRow> {
    cost::steps(res)
        .iter()
        .filter_map(|step| res.cost_for(&p.new, step).map(|c| (step, c)))
        .map(|(step, c)| cost::row(res, step, c, Some(&p.base)))
        .filter(|r| r.ratio.is_some())
        .collect()
}

fn signed_pct(q: f64) -> String {
    format!("{:+.1}%", (q - 1.0) * 100.0)
}

/// The pair's cost rows summed up per unit, in the steps' order: the steps whose counts agree
/// within the cost tolerance together, the others as one range ("+0.5% to +1.1% per row
/// (l.i0, l.i1, l.i2)"). A count that did not repeat is marked.
pub fn cost_summary(rows: &[&CostRow]) -> Option<String> {
    let mut units: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| r.ratio.is_some()) {
        if !units.contains(&r.unit.as_str()) {
            units.push(&r.unit);
        }
    }
    let mut parts = Vec::new();
    for unit in units {
        let of: Vec<&&CostRow> = rows
            .iter()
            .filter(|r| r.unit == unit && r.ratio.is_some())
            .collect();
        let (same, apart): (Vec<&&CostRow>, Vec<&&CostRow>) = of
            .iter()
            .partition(|r| (r.ratio.unwrap() - 1.0).abs() <= COST_TOLERANCE);
        let steps = |rs: &[&&CostRow]| {
            let names: Vec<String> = rs
                .iter()
                .map(|r| {
                    if r.ratio_unstable {
                        format!("{}, a count that did not repeat", r.step)
                    } else {
                        r.step.clone()
                    }
                })
                .collect();
            names.join(", ")
        };
        if !apart.is_empty() {
            let lo = apart
                .iter()
                .map(|r| r.ratio.unwrap())
                .fold(f64::INFINITY, f64::min);
            let hi = apart
                .iter()
                .map(|r| r.ratio.unwrap())
                .fold(f64::NEG_INFINITY, f64::max);
            let range = if apart.len() == 1 || signed_pct(lo) == signed_pct(hi) {
                signed_pct(hi)
            } else {
                format!("{} to {}", signed_pct(lo), signed_pct(hi))
            };
            parts.push(format!("{range} per {unit} ({})", steps(&apart)));
        }
        if !same.is_empty() {
            parts.push(format!(
                "the same within {:.1}% per {unit} ({})",
                COST_TOLERANCE * 100.0,
                steps(&same)
            ));
        }
    }
    (!parts.is_empty()).then(|| format!("instructions {}", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(step: &str, unit: &str, ratio: f64, unstable: bool) -> CostRow {
        CostRow {
            step: step.into(),
            variant: "new".into(),
            unit: unit.into(),
            ir: Some(1000.0 * ratio),
            unstable,
            base: Some("base".into()),
            ratio: Some(ratio),
            difference: Some(1000.0 * (ratio - 1.0)),
            ratio_unstable: unstable,
        }
    }

    #[test]
    fn counts_are_summed_up_per_unit_with_the_steps_that_agree_apart() {
        let rows = [
            row("point_select", "transaction", 1.016, false),
            row("l.i0", "row", 1.005, false),
            row("l.x", "row", 0.999, false),
            row("l.i1", "row", 1.011, true),
            row("qr100", "query", 1.007, false),
        ];
        let refs: Vec<&CostRow> = rows.iter().collect();
        assert_eq!(
            cost_summary(&refs).unwrap(),
            "instructions +1.6% per transaction (point_select), +0.5% to +1.1% per row (l.i0, l.i1, a count that did not repeat), the same within 0.2% per row (l.x), +0.7% per query (qr100)"
        );
        assert_eq!(cost_summary(&[]), None);
    }
}
