//! A measure pooled over several throughput cells, compared between a pair of variants: the
//! glance's server CPU per transaction, the Findings' lines and the published figures that
//! summarise a table read it the same way.

use crate::report::cells::rounds;
use crate::report::subject::{Pair, Subject};
use crate::results::CellResult;
use crate::stats::{paired, unpaired, Comparison};

/// Per round, the geometric mean of a metric over `cells`, of both variants, taking only the
/// cells both measured in that round; compared as the relative tables compare one cell.
pub fn pooled(
    s: &Subject,
    p: &Pair,
    cells: &[(String, u32)],
    metric: fn(&CellResult) -> f64,
) -> Option<Comparison> {
    let res = &s.results;
    let threshold = res.study.threshold;
    let ok = |v: &str, step: &str, t: u32, round: Option<u32>| -> Vec<(u32, f64)> {
        rounds(res, v, step, t)
            .filter(|c| c.ok && round.is_none_or(|r| r == c.key.round))
            .map(|c| (c.key.round, metric(c)))
            .filter(|(_, x)| *x > 0.0 && x.is_finite())
            .collect()
    };
    let geo = |xs: &[f64]| (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp();
    if !s.paired() {
        // Two documents share no rounds: each side's rounds pooled over the cells by position.
        let side = |v: &str| -> Vec<f64> {
            let per_cell: Vec<Vec<f64>> = cells
                .iter()
                .map(|(st, t)| ok(v, st, *t, None).into_iter().map(|x| x.1).collect())
                .filter(|xs: &Vec<f64>| !xs.is_empty())
                .collect();
            let n = per_cell.iter().map(Vec::len).min().unwrap_or(0);
            (0..n)
                .map(|i| geo(&per_cell.iter().map(|xs| xs[i]).collect::<Vec<_>>()))
                .collect()
        };
        let (b, n) = (side(&p.base), side(&p.new));
        return (!b.is_empty() && !n.is_empty()).then(|| unpaired(&b, &n, threshold));
    }
    let mut by_round: Vec<(f64, f64)> = Vec::new();
    for r in 0..res.study.rounds.max(1) {
        let (mut b, mut n) = (Vec::new(), Vec::new());
        for (st, t) in cells {
            if let (Some(x), Some(y)) = (
                ok(&p.base, st, *t, Some(r)).first(),
                ok(&p.new, st, *t, Some(r)).first(),
            ) {
                b.push(x.1);
                n.push(y.1);
            }
        }
        if !b.is_empty() {
            by_round.push((geo(&b), geo(&n)));
        }
    }
    (!by_round.is_empty()).then(|| paired(&by_round, threshold))
}
