//! Studies: variants × workload steps × threads × rounds, interleaved, verified, measured.

pub mod builtin;
pub mod cell;
pub mod cost;
pub mod dataset;
pub mod file;
pub mod overrides;
pub mod runner;
pub mod scenarios;
pub mod variant;
