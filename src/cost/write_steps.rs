//! What both counting methods share for the Insert Benchmark's write steps: the table's state
//! for a step's work, and the verdict on a step's two attempts.

use super::windows::{CostMeasurement, Window};
use crate::connection::AdminConn;
use crate::workloads::ibench::{schema, TableState};
use anyhow::Result;
use std::sync::Arc;

/// How far a write step's two attempts may differ, relative to the lower.
pub use crate::results::COST_WRITE_TOLERANCE as WRITE_TOLERANCE;

/// The benchmark's one table as it stands: its name and key range.
pub fn table_state(conn: &mut AdminConn) -> Result<Arc<TableState>> {
    let name = schema::table_name(0);
    let f = schema::facts(conn, &name)?;
    Ok(Arc::new(TableState::new(name, f.min_id, f.max_id)))
}

/// The two attempts' instructions per row: the second is kept; apart by more than
/// [`WRITE_TOLERANCE`], the result is unstable.
pub fn verdict(windows: Vec<Window>, per_row: Vec<f64>) -> CostMeasurement {
    let (a, b) = (per_row[0], per_row[1]);
    let unstable = (a - b).abs() / a.min(b) > WRITE_TOLERANCE;
    CostMeasurement {
        windows,
        estimates: per_row,
        ir_per_txn: b,
        unstable,
    }
}
