//! Stage: builds. A server built from its source: the source fetched and pinned (Debian's
//! source packages through apt with psbench's own sources list, or a local tree or tarball),
//! an engine's recipe run with a log and progress, and the installed tree kept in a cache keyed
//! by everything that makes the binary (source checksum, engine, flag set and options,
//! compiler, the CPU of a native build, the recipe's version).
//!
//! What a flag set means for a given engine is that engine's to say (engines/ hand this stage a
//! [`Recipe`]); this stage never asks which engine it builds.

pub mod archive;
pub mod builder;
pub mod cache;
pub mod debian;
pub mod progress;
pub mod recipe;
pub mod runner;
pub mod source;
pub mod toolchain;

pub use cache::{builds_dir, BuildRecord};
pub use recipe::{Layout, Recipe, Step};
pub use source::{Source, SourceSpec};
