use crate::cli::Args;
// is_insert_benchmark() in a comment does not ask, nor does is_insert_benchmarked().
pub fn cells(w: &Step) -> u32 { if w.is_insert_benchmarked() { 0 } else { 1 } }
pub fn steps(w: &Step) -> u32 { if w.is_insert_benchmark() { 10 } else { 1 } }
pub const NAME: &str = INSERT_BENCHMARK;
