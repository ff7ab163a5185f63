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

/// Whether two attempts' instructions per row agree within [`WRITE_TOLERANCE`].
pub fn agree(a: f64, b: f64) -> bool {
    (a - b).abs() / a.min(b) <= WRITE_TOLERANCE
}

/// The attempts' instructions per row (two, or three when the first two disagreed): the
/// closest pair is judged, and the later of it kept; apart by more than
/// [`WRITE_TOLERANCE`], the result is unstable. Every attempt stays in the estimates.
pub fn verdict(windows: Vec<Window>, per_row: Vec<f64>) -> CostMeasurement {
    let mut best = (0, 1);
    let apart =
        |(i, j): (usize, usize)| (per_row[i] - per_row[j]).abs() / per_row[i].min(per_row[j]);
    for i in 0..per_row.len() {
        for j in i + 1..per_row.len() {
            if apart((i, j)) < apart(best) {
                best = (i, j);
            }
        }
    }
    CostMeasurement {
        windows,
        ir_per_txn: per_row[best.1],
        unstable: !agree(per_row[best.0], per_row[best.1]),
        estimates: per_row,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_pair_is_judged_and_its_later_kept() {
        let m = verdict(Vec::new(), vec![40_887.7, 39_932.9, 39_950.0]);
        assert!(!m.unstable);
        assert_eq!(m.ir_per_txn, 39_950.0);
        assert_eq!(m.estimates.len(), 3);
        let m = verdict(Vec::new(), vec![100.0, 100.4]);
        assert!(!m.unstable);
        assert_eq!(m.ir_per_txn, 100.4);
        assert!(verdict(Vec::new(), vec![100.0, 101.0, 102.1]).unstable);
    }
}
