//! Stage 5: reports. Tables computed once from a results document, rendered per format.

pub mod markdown;
pub mod tables;
