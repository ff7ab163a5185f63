//! The Insert Benchmark (docs/insert-benchmark.md): tables pi1..piN, their three secondary
//! indexes, the rows, the step sequence and the workers of each step. The step sequence
//! itself (checks, cleanup, results) is run by `crate::ibench_sequence`.

mod one_connection;
mod options;
mod roles;
mod rows;
pub mod schema;
mod steps;
mod table;
mod workload;

pub use one_connection::{QueriesOnly, WriteWork};
pub use options::IbenchOptions;
pub use roles::{point_sql, range_sql, CLASSES, DELETE, INDEX, INSERT, QUERY};
pub use schema::DATABASE;
pub use steps::{parse_steps, step, QueryShape, Step, StepKind, ALL_STEPS};
pub use table::TableState;
pub use workload::{table_states, StepWorkload};
