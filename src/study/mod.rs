//! Studies: variants × workload steps × threads × rounds, interleaved, verified, measured.

mod alternate;
pub mod builtin;
pub mod cell;
mod context;
mod cost_runner;
pub mod dataset;
pub mod file;
mod file_keys;
pub mod host_probe;
pub mod ibench_cost;
mod insert_benchmark;
pub mod load;
mod locate;
pub mod overrides;
pub mod placement;
mod progress;
pub mod regime;
pub mod runner;
mod selections;
pub mod shard;
mod slices;
mod sweep;
mod throughput;
pub mod variant;
pub mod work;
mod workload_of;
