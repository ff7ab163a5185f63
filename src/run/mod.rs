//! How a study runs: the runner, the work list, turns and alternating slices, cells with
//! their probes, cost mode over the variants, the Insert Benchmark entries, locating a sweep's
//! changes, datasets, CPU placement, the host probe, progress and shards. What a study is
//! comes from crate::study.

mod alternate;
pub mod cell;
pub mod checkpoint;
mod context;
mod cost_runner;
pub mod dataset;
mod dataset_own;
pub mod host_probe;
mod ibench_cost;
mod insert_benchmark;
mod locate;
mod out_dir;
pub mod placement;
mod prepare;
mod progress;
pub mod regime;
pub mod runner;
pub mod shard;
mod slices;
mod throughput;
pub mod variant;
pub mod work;
