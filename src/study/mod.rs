//! What a study is: its file (keys, mistakes, built-ins), command-line overrides, sweeps,
//! data regimes, what each mode measures, `study.toml` and the plan. How a study runs is
//! crate::run, which imports this stage and never the reverse.

pub mod basedirs;
pub mod builtin;
pub mod file;
mod file_keys;
mod inputs;
pub mod load;
pub mod measures;
pub mod overrides;
pub mod plan;
mod published_check;
pub mod regime;
mod selections;
mod steps;
pub mod study_toml;
mod sweep;
