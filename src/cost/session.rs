//! The measured connection: warmed up, then running whole replays of the block.

use super::windows::Plan;
use crate::connection::{self, Endpoint};
use crate::workloads::{EventError, QueryCounters, Workload};
use anyhow::{bail, Context, Result};

/// The measured connection, kept across the warm-up and every window it runs.
pub struct Session<'a> {
    workload: &'a dyn Workload,
    pub conn: connection::Session,
    seed: u64,
}

/// Keeps the warm-up's draws apart from the block's.
const WARMUP_SEED_SALT: u64 = 0x00C0_57AA_3A11_0001;

impl<'a> Session<'a> {
    pub fn open(workload: &'a dyn Workload, ep: &Endpoint, seed: u64) -> Result<Session<'a>> {
        let conn = ep.session()?;
        Ok(Session {
            workload,
            conn,
            seed,
        })
    }

    /// Fresh draws, then the block once, so that every page and statement the block touches
    /// is in memory and prepared before anything is counted.
    pub fn warm_up(&mut self, plan: &Plan) -> Result<()> {
        self.run(self.seed ^ WARMUP_SEED_SALT, plan.warmup)?;
        self.run(self.seed, plan.block())
    }

    pub fn run_window(&mut self, events: u32, block: u32) -> Result<()> {
        for _ in 0..events / block {
            self.run(self.seed, block)?;
        }
        Ok(())
    }

    /// Run `n` transactions from a worker seeded with `seed` (its statements come from the
    /// connection's statement cache after the first time, so no server work); a deadlock is
    /// re-run as the driver does, anything else ends the measurement (a reconnect would
    /// change the serving thread).
    fn run(&mut self, seed: u64, n: u32) -> Result<()> {
        let mut worker = self
            .workload
            .worker(0, 1, seed, &mut self.conn)
            .context("preparing the measured connection")?;
        let mut counters = QueryCounters::default();
        let mut done = 0;
        while done < n {
            match worker.event(&mut self.conn, &mut counters) {
                Ok(()) => done += 1,
                Err(EventError::Retryable { .. }) => {}
                Err(EventError::ConnectionLost(m)) => {
                    bail!("the measured connection was lost: {m}")
                }
                // Its work would count in the window's transactions without being one.
                Err(EventError::Failed(m)) => {
                    bail!("a transaction failed on the measured connection: {m}")
                }
                Err(EventError::Fatal(e)) => return Err(e),
            }
        }
        Ok(())
    }
}
