//! Stage 3: results. One versioned JSON document per study, with provenance.

pub mod document;
pub mod provenance;

pub use document::{CellKey, CellResult, CostResult, Flag, Resources, StudyResults};
pub use provenance::{Host, VariantProvenance};
