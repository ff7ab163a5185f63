//! What a run tells whoever watches it while it runs: the `bench` command prints sysbench's
//! lines from these calls (console/), a study watches nothing. The driver itself prints
//! nothing.

use crate::workloads::QueryCounters;

/// One `--report-interval` window, as the collector closes it.
pub struct Window {
    pub elapsed_label_s: u64,
    pub threads: usize,
    pub seconds: f64,
    pub events: u64,
    pub queries: QueryCounters,
    pub errors: u64,
    pub reconnects: u64,
    pub percentile: f64,
    pub percentile_ms: f64,
    /// Open loop only: arrivals waiting for a thread, and transactions executing.
    pub queue: Option<(usize, usize)>,
}

/// Called from the run's main thread; every call has a default that does nothing.
pub trait Watch {
    /// Threads are being started (connect and prepare, untimed).
    fn starting(&mut self) {}
    /// Every thread is ready and released.
    fn started(&mut self) {}
    /// A `--report-interval` window closed.
    fn window(&mut self, _w: &Window) {}
}

/// Watches nothing: a study's cells, cost mode, the Insert Benchmark inside a study.
pub struct Unwatched;

impl Watch for Unwatched {}
