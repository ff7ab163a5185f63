// The crate root is exempt: it may name any stage.
pub mod cli;
pub use crate::study::Study;
