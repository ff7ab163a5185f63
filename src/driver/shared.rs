//! State the worker threads and the collector share during a run. Everything a worker touches
//! per transaction is either its own slot (a mutex only the collector contends, once per
//! second) or a relaxed atomic.

use super::interval::IntervalStats;
use super::schedule::Schedule;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// The run's time line, fixed when the threads are released.
#[derive(Clone, Copy, Debug)]
pub struct Timeline {
    /// The threads were released (the origin of every schedule).
    pub released: Instant,
    /// Statistics start (after `--warmup-time`).
    pub measure_start: Instant,
    /// `--time` ends, if set.
    pub end: Option<Instant>,
}

impl Timeline {
    pub fn is_over(&self, t: Instant) -> bool {
        self.end.is_some_and(|e| t >= e)
    }
}

/// A thread's statistics, alone on its cache lines: neighbouring threads update their own
/// counters on every transaction and must not bounce each other's lines.
#[repr(align(128))]
pub struct Slot(Mutex<IntervalStats>);

impl std::ops::Deref for Slot {
    type Target = Mutex<IntervalStats>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

pub struct Shared {
    pub timeline: OnceLock<Timeline>,
    /// Set by a fatal error, a failed start, or Ctrl-C: threads finish their event and leave.
    pub stop: AtomicBool,
    /// `--events`: the limit and the tickets handed out so far (counted before each event).
    pub event_limit: Option<u64>,
    pub events_started: AtomicU64,
    /// Open loop only; set with the timeline.
    pub schedule: OnceLock<Schedule>,
    /// Worker threads still in their loop (sysbench's `thds:`).
    pub running: AtomicUsize,
    /// Open loop only: transactions executing right now (sysbench's `concurrency:`).
    pub in_flight: AtomicUsize,
    /// Open loop only: transactions due before `--time` ended that never started.
    pub dropped: AtomicU64,
    /// One per thread; see [`IntervalStats`].
    pub slots: Vec<Slot>,
    /// The first fatal error, which ends the run.
    pub fatal: Mutex<Option<anyhow::Error>>,
}

impl Shared {
    pub fn new(threads: usize, classes: usize, event_limit: Option<u64>) -> Self {
        Shared {
            timeline: OnceLock::new(),
            stop: AtomicBool::new(false),
            event_limit,
            events_started: AtomicU64::new(0),
            schedule: OnceLock::new(),
            running: AtomicUsize::new(threads),
            in_flight: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
            slots: (0..threads)
                .map(|_| Slot(Mutex::new(IntervalStats::new(classes))))
                .collect(),
            fatal: Mutex::new(None),
        }
    }

    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Record the first fatal error and tell every thread to stop.
    pub fn fail(&self, e: anyhow::Error) {
        let mut f = self.fatal.lock().unwrap();
        if f.is_none() {
            *f = Some(e);
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Take an `--events` ticket; false once the limit is reached.
    #[inline]
    pub fn take_event_ticket(&self) -> bool {
        match self.event_limit {
            None => true,
            Some(limit) => self.events_started.fetch_add(1, Ordering::Relaxed) < limit,
        }
    }
}
