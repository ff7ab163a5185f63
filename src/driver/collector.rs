//! The main thread during a run: every second it swaps each worker's slot for an empty one,
//! merges what it took into the 1 s time series, the `--report-interval` window and the
//! totals, and hands each `--report-interval` window to the run's watcher.

use super::interval::IntervalStats;
use super::options::RunOptions;
use super::series::RecordContext;
use super::shared::{Shared, Timeline};
use super::watch::{Watch, Window};
use crate::results::bench::IntervalRecord;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Per-thread sums, for sysbench's "Threads fairness".
#[derive(Clone, Copy, Debug, Default)]
pub struct ThreadTotals {
    pub events: u64,
    pub busy_ns: u64,
}

const TICK: Duration = Duration::from_secs(1);

pub struct Collector<'a> {
    shared: &'a Shared,
    opts: &'a RunOptions,
    class_names: &'a [String],
    spare: IntervalStats,
    finished: usize,
    last_drain: Instant,
    window: IntervalStats,
    window_start: Instant,
    pub per_thread: Vec<ThreadTotals>,
    pub total: IntervalStats,
    pub seconds: Vec<IntervalRecord>,
}

impl<'a> Collector<'a> {
    pub fn new(
        shared: &'a Shared,
        opts: &'a RunOptions,
        class_names: &'a [String],
        timeline: &Timeline,
    ) -> Self {
        let classes = class_names.len();
        Collector {
            shared,
            opts,
            class_names,
            spare: IntervalStats::new(classes),
            finished: 0,
            last_drain: timeline.measure_start,
            window: IntervalStats::new(classes),
            window_start: timeline.measure_start,
            per_thread: vec![ThreadTotals::default(); shared.slots.len()],
            total: IntervalStats::new(classes),
            seconds: Vec::new(),
        }
    }

    /// Wait out the warm-up; returns false when every thread already finished.
    pub fn warm_up(&mut self, done: &Receiver<()>, timeline: &Timeline) -> bool {
        !self.wait_until(done, timeline.measure_start)
    }

    /// Collect every second until all threads have finished, closing windows on their grid.
    pub fn watch(&mut self, done: &Receiver<()>, timeline: &Timeline, watch: &mut dyn Watch) {
        let origin = timeline.measure_start;
        let every = self.opts.report_interval.max(0) as u64;
        let mut k: u64 = 1;
        loop {
            if self.wait_until(done, origin + TICK * k as u32) {
                return;
            }
            let now = Instant::now();
            self.take_second(now, origin);
            if every > 0 && k.is_multiple_of(every) {
                self.close_window(now, origin, watch);
            }
            // Skip ticks missed while busy, as sysbench's reporter does.
            let behind = (now - origin).as_secs();
            k = (k + 1).max(behind + 1);
        }
    }

    /// After the threads have been joined: take the last, partial second.
    pub fn finish(&mut self, now: Instant, origin: Instant) {
        let last = self.drain();
        self.total.add(&last);
        if last.events + last.errors + last.reconnects > 0 {
            self.push_second(&last, now, origin);
        }
    }

    /// True when all threads have finished (before `t` or at once).
    fn wait_until(&mut self, done: &Receiver<()>, t: Instant) -> bool {
        let threads = self.shared.slots.len();
        loop {
            if self.finished >= threads {
                return true;
            }
            let now = Instant::now();
            if now >= t {
                return false;
            }
            match done.recv_timeout(t - now) {
                Ok(()) => self.finished += 1,
                Err(RecvTimeoutError::Timeout) => return false,
                Err(RecvTimeoutError::Disconnected) => {
                    self.finished = threads;
                    return true;
                }
            }
        }
    }

    fn take_second(&mut self, now: Instant, origin: Instant) {
        let second = self.drain();
        self.total.add(&second);
        self.window.add(&second);
        self.push_second(&second, now, origin);
    }

    /// Swap every thread's slot for an empty one and merge what was in them.
    fn drain(&mut self) -> IntervalStats {
        let mut merged = IntervalStats::new(self.class_names.len());
        for (slot, totals) in self.shared.slots.iter().zip(&mut self.per_thread) {
            std::mem::swap(&mut *slot.lock().unwrap(), &mut self.spare);
            totals.events += self.spare.events;
            totals.busy_ns += self.spare.busy_ns();
            merged.add(&self.spare);
            self.spare.reset();
        }
        merged
    }

    fn push_second(&mut self, s: &IntervalStats, now: Instant, origin: Instant) {
        let open = self.opts.open_loop();
        let ctx = RecordContext {
            t: (now - origin).as_secs_f64(),
            duration: (now - self.last_drain).as_secs_f64(),
            threads: self.shared.running.load(Ordering::Relaxed),
            open_loop: open,
            queue_length: self.shared.schedule.get().map(|q| q.backlog(now)),
            concurrency: open.then(|| self.shared.in_flight.load(Ordering::Relaxed)),
            class_names: self.class_names,
            percentiles: &self.opts.percentiles,
        };
        self.seconds.push(IntervalRecord::new(s, &ctx));
        self.last_drain = now;
    }

    fn close_window(&mut self, now: Instant, origin: Instant, watch: &mut dyn Watch) {
        let p = self.opts.interval_percentile();
        let w = &self.window;
        let queue = self
            .seconds
            .last()
            .and_then(|last| last.queue_length.zip(last.concurrency));
        watch.window(&Window {
            elapsed_label_s: (now - origin).as_secs_f64().round() as u64,
            threads: self.shared.running.load(Ordering::Relaxed),
            seconds: (now - self.window_start).as_secs_f64(),
            events: w.events,
            queries: w.queries,
            errors: w.errors,
            reconnects: w.reconnects,
            percentile: p,
            percentile_ms: w.latency().percentile_ms(p),
            queue,
        });
        self.window.reset();
        self.window_start = now;
    }
}
