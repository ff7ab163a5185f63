//! A recipe: what an engine says a flag set means for a source — its exact options, the
//! commands that configure, compile and install it, and where the server lands — as plain
//! data this stage runs and records.

use std::path::PathBuf;

/// Where a build happens, given to the engine that writes the recipe.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The unpacked source (never written to: builds happen out of tree).
    pub source: PathBuf,
    /// The build directory.
    pub build: PathBuf,
    /// The install prefix: the tree a sandbox runs.
    pub prefix: PathBuf,
    /// Compile jobs.
    pub jobs: usize,
    /// ccache, when installed.
    pub ccache: Option<PathBuf>,
}

/// One command of a build.
#[derive(Clone, Debug)]
pub struct Step {
    /// What it does, for progress and errors: `configure`, `compile the server`.
    pub label: String,
    pub argv: Vec<String>,
    pub dir: PathBuf,
    pub env: Vec<(String, String)>,
    /// About how many compile commands it runs, when its output does not count them itself
    /// (ninja's `[12/345]`, cmake's `[ 45%]` do): the progress bar's total.
    pub units: Option<u64>,
}

/// A flag set of an engine, for listing and documentation.
#[derive(Clone, Debug)]
pub struct FlagSet {
    pub name: &'static str,
    /// What it is for, in a line.
    pub purpose: &'static str,
    /// Whether it compiles for this machine's CPU: the CPU enters the cache key, and cost mode
    /// must check valgrind can run what the compiler was allowed to use.
    pub native: bool,
}

/// Everything a build of one flag set of one source needs.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// `mariadb`, `mysql`, `postgres`: names the build and enters its key.
    pub engine: String,
    /// The source's release as the engine reads it from the tree (`10.11.19`, `15.18`).
    pub release: String,
    pub flags: String,
    /// The flag set's options exactly as passed (cmake `-D…`, configure `--…`, `CFLAGS=…`).
    pub options: Vec<String>,
    /// The user's own options, passed after the flag set's.
    pub extra: Vec<String>,
    pub native: bool,
    /// Bumped when the engine changes what a flag set builds, so that an older build is not
    /// taken for this one.
    pub recipe_version: u32,
    /// Free space the build needs, in bytes.
    pub disk_bytes: u64,
    pub steps: Vec<Step>,
    /// The server program, relative to the prefix (`bin/postgres`, `bin/mariadbd`).
    pub server: PathBuf,
}
