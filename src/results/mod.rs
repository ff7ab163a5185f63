//! Stage 3: results. One versioned JSON document per study, with provenance.

pub mod document;
pub mod provenance;

pub use document::{
    CellKey, CellResult, CostResult, CostWindow, Flag, Resources, StudyResults, COST_TOLERANCE,
};
pub use provenance::{Host, VariantProvenance};
