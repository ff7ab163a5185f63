//! Stage 4: statistics over rounds. Medians, ratios to the base variant with intervals formed
//! within rounds, the call "changed / not changed", and the rounds a change would need.

pub mod compare;
pub mod steady;
pub mod summary;

pub use compare::{paired, rounds_to_resolve, unpaired, Comparison, Verdict, MIN_ROUNDS};
pub use summary::{median, Summary};
