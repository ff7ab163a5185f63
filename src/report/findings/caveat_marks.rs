//! The marks a comparison carries for its caveats, each caveat said once in the Findings.

use crate::report::grid::FLAG;
use crate::report::subject::{Pair, Subject};
use crate::report::tables::measurements::flagged;
use crate::report::tables::saturation::saturated;

/// Marks a figure measured on a saturated host (its caveat says so once).
pub const SATURATED: &str = "†";

/// The marks of a comparison's caveats: " ⚑" when flagged rounds enter it, " †" when the
/// host was saturated.
pub fn marks(s: &Subject, p: &Pair, step: &str, t: u32) -> String {
    let res = &s.results;
    let mut m = String::new();
    if flagged(res, &p.new, step, t) || flagged(res, &p.base, step, t) {
        m.push(' ');
        m.push_str(FLAG);
    }
    if saturated(res, &p.new, step, t) || saturated(res, &p.base, step, t) {
        m.push(' ');
        m.push_str(SATURATED);
    }
    m
}
