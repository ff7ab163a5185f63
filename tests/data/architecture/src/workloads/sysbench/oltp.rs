// From a non-mod.rs file, super::super stays in workloads; a third super reaches the crate root.
use super::Options;
use super::super::random::Zipf;
use super::super::super::driver::Run;
