//! Which frames grew per transaction: self time (samples where the frame is the leaf) and
//! total time (samples with the frame anywhere on the stack, once per stack), base against
//! variant, as a Markdown table.

use super::per_txn::PerTxn;
use std::collections::{BTreeMap, BTreeSet};

/// CPU nanoseconds per transaction spent in a frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameCost {
    pub self_ns: f64,
    pub total_ns: f64,
}

pub fn frame_costs(p: &PerTxn) -> BTreeMap<String, FrameCost> {
    let mut out: BTreeMap<String, FrameCost> = BTreeMap::new();
    for (stack, ns) in p {
        let frames: Vec<&str> = stack.split(';').collect();
        if let Some(leaf) = frames.last() {
            out.entry(leaf.to_string()).or_default().self_ns += ns;
        }
        // A recursive frame counts once per stack, or its total would exceed the whole.
        let distinct: BTreeSet<&str> = frames.into_iter().collect();
        for f in distinct {
            out.entry(f.to_string()).or_default().total_ns += ns;
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
pub struct Growth {
    pub frame: String,
    pub base: FrameCost,
    pub variant: FrameCost,
}

impl Growth {
    pub fn self_delta(&self) -> f64 {
        self.variant.self_ns - self.base.self_ns
    }
    pub fn total_delta(&self) -> f64 {
        self.variant.total_ns - self.base.total_ns
    }
}

/// The `n` frames whose self time per transaction grew most (growth only).
pub fn grew_most(base: &PerTxn, variant: &PerTxn, n: usize) -> Vec<Growth> {
    let b = frame_costs(base);
    let v = frame_costs(variant);
    let names: BTreeSet<&String> = b.keys().chain(v.keys()).collect();
    let mut rows: Vec<Growth> = names
        .into_iter()
        .map(|f| Growth {
            frame: f.clone(),
            base: b.get(f).copied().unwrap_or_default(),
            variant: v.get(f).copied().unwrap_or_default(),
        })
        .filter(|g| g.self_delta() > 0.0)
        .collect();
    rows.sort_by(|x, y| y.self_delta().total_cmp(&x.self_delta()));
    rows.truncate(n);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(lines: &[(&str, f64)]) -> PerTxn {
        lines.iter().map(|(s, n)| (s.to_string(), *n)).collect()
    }

    #[test]
    fn self_and_total_per_frame() {
        let c = frame_costs(&p(&[("a;b;a", 10.0), ("a;c", 5.0)]));
        assert_eq!(
            c["a"],
            FrameCost {
                self_ns: 10.0,
                total_ns: 15.0
            }
        );
        assert_eq!(
            c["b"],
            FrameCost {
                self_ns: 0.0,
                total_ns: 10.0
            }
        );
        assert_eq!(c["c"].self_ns, 5.0);
    }

    #[test]
    fn growth_ranks_by_self_time_and_drops_shrinkage() {
        let base = p(&[("m;q;exec", 1000.0), ("m;q;lock", 100.0)]);
        let var = p(&[
            ("m;q;exec", 900.0),
            ("m;q;lock", 400.0),
            ("m;q;pfs_x", 250.0),
        ]);
        let rows = grew_most(&base, &var, 10);
        let names: Vec<&str> = rows.iter().map(|g| g.frame.as_str()).collect();
        assert_eq!(names, ["lock", "pfs_x"]);
        assert_eq!(rows[1].self_delta(), 250.0);
        assert_eq!(rows[0].variant.total_ns, 400.0);
        assert_eq!(grew_most(&base, &var, 1).len(), 1);
    }
}
