//! Stage 4: statistics over rounds. Medians, ratios to the base variant with intervals formed
//! within rounds, the call "changed / not changed", the rounds a change would need, and the
//! change points of a series of results.

pub mod changes;
pub mod compare;
mod edivisive;
pub mod steady;
pub mod summary;
mod ttest;

pub use compare::{paired, rounds_to_resolve, unpaired, Comparison, Verdict, MIN_ROUNDS};
pub use summary::{median, Summary};
