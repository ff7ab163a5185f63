//! Stacks per transaction: a stack's sampled CPU time ÷ the window's transactions. Profiles
//! of variants at different throughputs become comparable before they are differenced.

use super::fold::Folded;
use std::collections::BTreeMap;

/// Stack → CPU nanoseconds per transaction.
pub type PerTxn = BTreeMap<String, f64>;

pub fn per_transaction(folded: &Folded, transactions: u64) -> PerTxn {
    if transactions == 0 {
        return PerTxn::new();
    }
    folded
        .iter()
        .map(|(s, ns)| (s.clone(), *ns as f64 / transactions as f64))
        .collect()
}

/// Folded text of a per-transaction profile in whole nanoseconds (inferno drops fractions).
pub fn render(p: &PerTxn) -> String {
    p.iter()
        .map(|(s, ns)| (s, ns.round() as u64))
        .filter(|(_, ns)| *ns > 0)
        .map(|(s, ns)| format!("{s} {ns}\n"))
        .collect()
}

/// `stack base variant` lines, both in whole ns per transaction: inferno's differential
/// input, whose colour is then the growth per transaction (not the growth in share, which
/// is what difffolded's total normalisation gives).
pub fn differential(base: &PerTxn, variant: &PerTxn) -> Vec<String> {
    let mut stacks: Vec<&String> = base.keys().chain(variant.keys()).collect();
    stacks.sort();
    stacks.dedup();
    stacks
        .into_iter()
        .filter_map(|s| {
            let b = base.get(s).copied().unwrap_or(0.0).round() as u64;
            let v = variant.get(s).copied().unwrap_or(0.0).round() as u64;
            (b > 0 || v > 0).then(|| format!("{s} {b} {v}"))
        })
        .collect()
}

pub fn total(p: &PerTxn) -> f64 {
    p.values().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_become_cpu_time_per_transaction() {
        // 0.1 s of CPU over 1000 transactions = 100 µs each.
        let f: Folded = [
            ("a;b".to_string(), 100_000_000u64),
            ("a;c".into(), 50_000_000),
        ]
        .into();
        let p = per_transaction(&f, 1000);
        assert_eq!(p["a;b"], 100_000.0);
        assert_eq!(total(&p), 150_000.0);
        assert!(per_transaction(&f, 0).is_empty());
    }

    #[test]
    fn differential_is_per_transaction_not_per_share() {
        // Same stacks, same shares, but the variant did half the transactions with the same
        // samples: every stack costs twice as much per transaction.
        let f: Folded = [
            ("a;b".to_string(), 100_000_000u64),
            ("a;c".into(), 300_000_000),
        ]
        .into();
        let base = per_transaction(&f, 200);
        let var = per_transaction(&f, 100);
        let lines = differential(&base, &var);
        assert_eq!(lines, ["a;b 500000 1000000", "a;c 1500000 3000000"]);
        let only_new: PerTxn = [("x".to_string(), 7.4)].into();
        assert_eq!(differential(&PerTxn::new(), &only_new), ["x 0 7"]);
        assert_eq!(render(&only_new), "x 7\n");
    }
}
