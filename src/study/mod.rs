//! Studies: variants × workload steps × threads × rounds, interleaved, verified, measured.

pub mod scenarios;
