//! Studies: variants × workload steps × threads × rounds, interleaved, verified, measured.

pub mod builtin;
pub mod callgrind;
pub mod cell;
pub mod cost;
mod cost_runner;
pub mod dataset;
pub mod file;
pub mod overrides;
mod progress;
pub mod runner;
pub mod scenarios;
pub mod variant;
