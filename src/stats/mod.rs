//! Stage 4: statistics over rounds. Medians, ratios to the base variant with bootstrap
//! intervals, and the call "changed / not changed".

pub mod compare;
pub mod summary;

pub use compare::{compare, Comparison, Verdict};
pub use summary::{median, Summary};
