//! Stage 3: results, the one schema. Every type a results file holds is plain data here: a
//! study's document (cells, cost, provenance, the study as run, Insert Benchmark steps) and a
//! bench run's document, with one writer and one reader (io.rs). The stages fill these types;
//! results imports no stage, so report/ can read a document without knowing how it was made.

pub mod bench;
pub mod build;
pub mod count_time;
pub mod cpus;
mod dataset_own;
pub mod document;
pub mod host_probe;
pub mod insert_benchmark;
pub mod io;
pub mod latency;
pub mod merge;
pub mod profile_settings;
pub mod provenance;
pub mod published;
pub mod release_order;
pub mod shard;
pub mod sources;
pub mod step;
pub mod study;
pub mod sweep;

pub use bench::BenchDocument;
pub use build::{Family, Flavour, Origin, ServerBuild};
pub use count_time::CountTime;
pub use cpus::CpuList;
pub use document::{
    CellKey, CellResult, ClassResult, CostResult, CostUnit, CostWindow, DatasetRecord, DeviceIo,
    Flag, FrameGrowth, FramesThatGrew, Regime, RegimeCheck, Resources, SliceRecord,
    StatementLatency, StudyResults, COST_TOLERANCE, COST_WRITE_TOLERANCE, HOST_SATURATED_SHARE,
    REGIME_CACHED_MAX, REGIME_IO_BOUND_MIN,
};
pub use host_probe::{HostProbe, Placement, Wakeup};
pub use io::write_atomically;
pub use provenance::{
    ConfigFileRecord, Host, InstrumentClass, PfsState, ServerOption, VariantProvenance,
};
pub use shard::{MergedPart, RoundRecord, ShardInfo, Sharding};
