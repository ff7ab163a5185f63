//! The `bench` commands' presentation: sysbench-shaped header, interval lines and final
//! report, the Insert Benchmark's step text, and the bench document (`--json`). Only cli/
//! uses it; studies call the driver and ibench/ directly and print nothing of this.

mod bench_document;
mod final_report;
mod header;
pub mod ibench_text;
mod insert_benchmark;
pub mod sysbench;
mod sysbench_text;

pub use bench_document::RunContext;
pub use insert_benchmark::run_sequence as insert_benchmark;
