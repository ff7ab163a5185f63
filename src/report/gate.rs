//! A pull request's gate: in one cost-mode study of two builds (or settings, or releases),
//! each variant's instructions per unit of work against its base, step by step; a rise
//! beyond the threshold is a regression. Both sides were counted on one host in one job, so a
//! CI runner whose CPU model changes from job to job cannot start a new series here.

use crate::report::subject::Subject;
use crate::report::tables::cost::{rows, CostRow};
use crate::report::tables::host::whole;

/// What a gate found: a line per step checked that is worth saying, and the counts.
#[derive(Debug, Default)]
pub struct Gate {
    pub lines: Vec<String>,
    pub checked: usize,
    pub regressions: usize,
    pub improvements: usize,
    /// Steps a side of which was not counted, or whose counts did not repeat.
    pub unmeasured: usize,
}

fn pct(x: f64) -> String {
    format!("{:+.1}%", (x - 1.0) * 100.0)
}

/// Each variant's counts against its base, `threshold` the smallest rise called (0.01: 1%).
pub fn check(s: &Subject, threshold: f64) -> Gate {
    let mut g = Gate::default();
    for r in rows(s) {
        let Some(base) = r.base.as_deref() else {
            continue;
        };
        g.checked += 1;
        let what = |r: &CostRow| format!("{} {}: instructions per {}", r.variant, r.step, r.unit);
        let base_ir = s
            .results
            .cost_for(base, &r.step)
            .filter(|c| c.ok)
            .map(|c| c.ir_per_txn);
        match (r.ratio, base_ir) {
            (Some(ratio), Some(b)) if !r.ratio_unstable => {
                let change = format!(
                    "{} {} against {base}'s ({} → {})",
                    what(&r),
                    pct(ratio),
                    whole(b),
                    whole(b * ratio)
                );
                if ratio > 1.0 + threshold {
                    g.regressions += 1;
                    g.lines.push(format!(
                        "regression: {change}, beyond {:.1}%",
                        threshold * 100.0
                    ));
                } else if ratio < 1.0 - threshold {
                    g.improvements += 1;
                    g.lines.push(format!("improvement: {change}"));
                }
            }
            (Some(_), Some(_)) => {
                g.unmeasured += 1;
                g.lines.push(format!(
                    "not checked: {} against {base}'s: a count did not repeat within its self-check",
                    what(&r)
                ));
            }
            _ => {
                g.unmeasured += 1;
                g.lines.push(format!(
                    "not checked: {} against {base}'s: a side was not counted (its failure is in the report)",
                    what(&r)
                ));
            }
        }
    }
    g
}

#[cfg(test)]
mod tests {
    #[test]
    fn changes_read_as_signed_percentages() {
        assert_eq!(super::pct(1.05), "+5.0%");
        assert_eq!(super::pct(0.98), "-2.0%");
    }
}
