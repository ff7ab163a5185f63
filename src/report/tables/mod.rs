//! The report's tables, computed once from a results document and rendered by every output
//! format: the measurements, the data regimes, the host and the provenance, and which of them
//! a report shows first.

pub mod background;
pub mod classes;
pub mod cost;
pub mod host;
pub mod io_regime;
pub mod measurements;
pub mod provenance;
pub mod relative_cpu;
pub mod rounds;
pub mod saturation;
pub mod sections;
pub mod shard_hosts;
pub mod slices;
pub mod sweep;
