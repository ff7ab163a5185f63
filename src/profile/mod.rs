//! Profiles that explain a difference: the server sampled with perf during measured windows,
//! folded with inferno, divided by the transactions of each window, and compared with the
//! base variant as flame graphs, differentials and a table of the frames that grew.

pub mod flame;
pub mod fold;
pub mod growth;
pub mod outputs;
pub mod per_txn;
pub mod perf;
pub mod sampler;
pub mod settings;
pub mod symbols;

pub use sampler::{CellSampler, Session};
pub use settings::ProfileSettings;
