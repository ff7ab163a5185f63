//! psbench: what does this database server setting, build or version cost on this workload?
//!
//! One module per pipeline stage (README.md, Layout); which may import which is written once,
//! in tests/architecture.rs. `cli` only parses arguments and calls into the stages.

pub mod builds;
pub mod cli;
pub mod connection;
pub mod console;
pub mod cost;
pub mod driver;
pub mod engines;
pub mod error;
pub mod history;
pub mod ibench_sequence;
pub mod probes;
pub mod profile;
pub mod report;
pub mod results;
pub mod run;
pub mod server;
pub mod stats;
pub mod study;
pub mod workloads;
