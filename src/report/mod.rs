//! Stage 5: reports. Tables computed once from a results document (or two, compared), rendered
//! per format: Markdown, one self-contained HTML page with SVG charts, CSV, Go benchmark text.
//!
//! Grouped by what a reader sees: `tables/`, `charts/`, `findings/` (the answer first: the
//! table at a glance and the Findings), `published/` (the published figures beside ours) and
//! `render/` (the output formats and the files they write). Beside them: the subject of a
//! report (one study, or two compared), its cells, the typed grid every table is, and the gate
//! `psbench check` runs.

pub mod cells;
pub mod charts;
pub mod compare;
pub mod findings;
pub mod gate;
pub mod grid;
pub mod pooled;
pub mod published;
pub mod render;
pub mod subject;
pub mod tables;

pub use render::{render, Format};
pub use subject::Subject;
