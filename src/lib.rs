//! psbench: what does this database server setting, build or version cost on this workload?
//!
//! One module per pipeline stage (see DESIGN.md); each stage knows only the one before it.
//! `cli` only parses arguments and calls into the stages.

pub mod cli;
pub mod driver;
pub mod error;
pub mod ibench;
pub mod probes;
pub mod profile;
pub mod report;
pub mod results;
pub mod server;
pub mod stats;
pub mod study;
pub mod workloads;
