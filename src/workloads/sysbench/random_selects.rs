//! select_random_points and select_random_ranges (docs/sysbench-compat.md#the-ten-workloads): one SELECT on sbtest1 per
//! event, values drawn from the worker's own segment of the k range.

use super::options::{OltpOptions, PsMode};
use super::sql;
use super::statement::{Param, Statement};
use crate::connection::Session;
use crate::workloads::random::{RangeSampler, Rng};
use crate::workloads::{EventError, QueryCounters, Worker};
use anyhow::Result;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `WHERE k IN (?, …)` with `random_points` values.
    Points { points: u32 },
    /// `number_of_ranges` × `k BETWEEN v AND v+delta`.
    Ranges { ranges: u32, delta: u32 },
}

impl Shape {
    fn text(self) -> String {
        match self {
            Shape::Points { points } => sql::random_points(points),
            Shape::Ranges { ranges, .. } => sql::random_ranges(ranges),
        }
    }
}

pub struct RandomSelectWorker {
    shape: Shape,
    prepared: bool,
    rng: Rng,
    values: RangeSampler,
    stmt: Statement,
    params: Vec<i64>,
    sql: String,
}

/// Thread t of `threads` draws from [t·rlen, t·rlen + rlen], rlen = table_size/threads
/// (a fraction in Lua, truncated when passed to the generator).
pub fn segment(table_size: u32, thread: usize, threads: usize) -> (u32, u32) {
    let rlen = f64::from(table_size) / threads.max(1) as f64;
    let rmin = rlen * (thread % threads.max(1)) as f64;
    (rmin as u32, (rmin + rlen) as u32)
}

impl RandomSelectWorker {
    pub fn new(
        conn: &mut Session,
        shape: Shape,
        opts: &OltpOptions,
        rng: Rng,
        thread: usize,
        threads: usize,
    ) -> Result<RandomSelectWorker> {
        let prepared = opts.db_ps_mode == PsMode::Auto;
        let (lo, hi) = segment(opts.table_size, thread, threads);
        let n = match shape {
            Shape::Points { points } => points,
            Shape::Ranges { ranges, .. } => ranges * 2,
        };
        Ok(RandomSelectWorker {
            shape,
            prepared,
            rng,
            values: RangeSampler::new(opts.distribution(), lo, hi),
            stmt: Statement::new(conn, &shape.text(), prepared)?,
            params: Vec::with_capacity(n as usize),
            sql: String::with_capacity(512),
        })
    }
}

impl Worker for RandomSelectWorker {
    fn event(
        &mut self,
        conn: &mut Session,
        counters: &mut QueryCounters,
    ) -> Result<(), EventError> {
        self.params.clear();
        match self.shape {
            Shape::Points { points } => {
                for _ in 0..points {
                    self.params
                        .push(i64::from(self.values.sample(&mut self.rng)));
                }
            }
            Shape::Ranges { ranges, delta } => {
                for _ in 0..ranges {
                    let v = i64::from(self.values.sample(&mut self.rng));
                    self.params.push(v);
                    self.params.push(v + i64::from(delta));
                }
            }
        }
        let params: Vec<Param<'_>> = self.params.iter().map(|&v| Param::Int(v)).collect();
        self.stmt.run(conn, &params, &mut self.sql, counters)
    }

    fn reconnected(&mut self, conn: &mut Session) -> Result<()> {
        self.stmt = Statement::new(conn, &self.shape.text(), self.prepared)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_split_the_table_per_thread() {
        assert_eq!(segment(10_000, 0, 1), (0, 10_000));
        assert_eq!(segment(10_000, 1, 3), (3333, 6666));
        assert_eq!(segment(10_000, 2, 3), (6666, 10_000));
    }
}
