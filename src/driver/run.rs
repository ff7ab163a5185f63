//! One measured run: start the threads (connect and prepare, untimed), release them
//! together, collect while they work, join them, and hand back everything measured.

use super::collector::{Collector, ThreadTotals};
use super::cpu::CpuUsage;
use super::event_loop::run_thread;
use super::gate::{Gate, Slots, CONNECTING_AT_ONCE};
use super::interval::IntervalStats;
use super::options::RunOptions;
use super::schedule::Schedule;
use super::shared::{Shared, Timeline};
use super::watch::Watch;
use crate::connection::Endpoint;
use crate::results::bench::IntervalRecord;
use crate::workloads::Workload;
use anyhow::{anyhow, Result};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long threads may take to connect and prepare (sysbench waits 30 s too); each thread's
/// handshake gets as long, since a thousand clients connecting at once on 2 cores took more than
/// the 10 s a single connection is given.
const START_LIMIT: Duration = Duration::from_secs(30);

/// Keeps the open-loop schedule's draws apart from the workload's, for the same seed.
const SCHEDULE_SEED_SALT: u64 = 0x005E_ED0F_A111_A7E5;

/// Everything a run measured.
pub struct RunReport {
    pub workload: String,
    pub class_names: Vec<String>,
    pub threads: usize,
    pub seed: u64,
    pub server_version: String,
    /// From the start of statistics until all threads had finished and disconnected.
    pub total_time_s: f64,
    pub totals: IntervalStats,
    pub per_thread: Vec<ThreadTotals>,
    pub seconds: Vec<IntervalRecord>,
    /// Client CPU while statistics were kept (warm-up excluded).
    pub cpu: CpuUsage,
    /// Open loop: transactions due before `--time` ended that never started.
    pub dropped: Option<u64>,
}

/// Tells the collector a thread has finished, also when it panicked.
struct Finished<'a> {
    shared: &'a Shared,
    done: mpsc::Sender<()>,
}

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.shared.running.fetch_sub(1, Ordering::Relaxed);
        let _ = self.done.send(());
    }
}

pub fn measure(
    workload: &dyn Workload,
    endpoint: &Endpoint,
    opts: &RunOptions,
    seed: u64,
    watch: &mut dyn Watch,
) -> Result<RunReport> {
    opts.validate_for(workload.ends_by_itself())?;
    let server_version = endpoint.server_version()?;
    let threads = opts.thread_count();
    let class_names = workload.class_names();
    let shared = Shared::new(threads, class_names.len(), opts.event_limit());
    let gate = Gate::default();
    let connecting = Slots::new(CONNECTING_AT_ONCE);
    let (ready_tx, ready_rx) = mpsc::channel::<(usize, Result<()>)>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    watch.starting();

    std::thread::scope(|scope| -> Result<RunReport> {
        let mut handles = Vec::with_capacity(threads);
        let mut start_error = None;
        for id in 0..threads {
            let ready = ready_tx.clone();
            let finished = Finished {
                shared: &shared,
                done: done_tx.clone(),
            };
            let (shared, gate, connecting) = (&shared, &gate, &connecting);
            let spawned = std::thread::Builder::new()
                .name(format!("psbench-w{id}"))
                .spawn_scoped(scope, move || {
                    let _finished = finished;
                    let session = {
                        let _slot = connecting.take();
                        endpoint.session_within(START_LIMIT)
                    };
                    let init = session.and_then(|mut conn| {
                        let worker = workload.worker(id, threads, seed, &mut conn)?;
                        Ok((conn, worker))
                    });
                    let state = match init {
                        Ok(s) => {
                            let _ = ready.send((id, Ok(())));
                            Some(s)
                        }
                        Err(e) => {
                            let _ = ready.send((id, Err(e)));
                            None
                        }
                    };
                    drop(ready);
                    gate.wait();
                    if let Some((mut conn, mut worker)) = state {
                        if !shared.stopping() {
                            let pace = workload.pace(id);
                            run_thread(id, shared, endpoint, &mut conn, worker.as_mut(), pace);
                        }
                    }
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    start_error = Some(anyhow!(e).context(format!("starting thread {id}")));
                    break;
                }
            }
        }
        drop(ready_tx);
        drop(done_tx);

        // Every thread connected and prepared (or failed to) before anything is timed, within
        // a bound as sysbench's.
        let deadline = Instant::now() + START_LIMIT;
        let mut ready = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match ready_rx.recv_timeout(left) {
                Ok((_, Ok(()))) => ready += 1,
                Ok((id, Err(e))) => {
                    if start_error.is_none() {
                        start_error = Some(e.context(format!("thread {id} could not start")));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    if start_error.is_none() {
                        start_error = Some(anyhow!(
                            "{ready} of {threads} client threads connected and prepared within \
                             {} s; the others are still waiting for the server",
                            START_LIMIT.as_secs()
                        ));
                    }
                    break;
                }
            }
        }
        if start_error.is_none() && ready < threads {
            start_error = Some(anyhow!("a worker thread ended before it was ready"));
        }
        if start_error.is_some() {
            shared.stop.store(true, Ordering::Relaxed);
        }

        let start = Instant::now();
        let measure_start = start + opts.warmup();
        let timeline = Timeline {
            released: start,
            measure_start,
            end: opts.time_limit().map(|t| measure_start + t),
        };
        let _ = shared.timeline.set(timeline);
        if opts.open_loop() {
            let _ = shared
                .schedule
                .set(Schedule::new(opts.rate, start, seed ^ SCHEDULE_SEED_SALT));
        }
        gate.open();
        if let Some(e) = start_error {
            join(handles)?;
            return Err(e);
        }
        watch.started();

        let mut collector = Collector::new(&shared, opts, &class_names, &timeline);
        let running = collector.warm_up(&done_rx, &timeline);
        let cpu_start = CpuUsage::now();
        if running {
            collector.watch(&done_rx, &timeline, watch);
        }
        join(handles)?;
        let end = Instant::now();
        let cpu = CpuUsage::now().since(&cpu_start);
        collector.finish(end, measure_start);
        if let Some(e) = shared.fatal.lock().unwrap().take() {
            return Err(e);
        }
        Ok(RunReport {
            workload: workload.name().to_string(),
            class_names: class_names.clone(),
            threads,
            seed,
            server_version: server_version.clone(),
            total_time_s: end.saturating_duration_since(measure_start).as_secs_f64(),
            totals: collector.total,
            per_thread: collector.per_thread,
            seconds: collector.seconds,
            cpu,
            dropped: shared.schedule.get().map(|s| {
                // Claimed but too late, plus never claimed at all.
                let stopped = timeline.end.map_or(end, |e| e.min(end));
                shared.dropped.load(Ordering::Relaxed) + s.backlog(stopped) as u64
            }),
        })
    })
}

fn join(handles: Vec<std::thread::ScopedJoinHandle<'_, ()>>) -> Result<()> {
    let mut panicked = 0;
    for h in handles {
        if h.join().is_err() {
            panicked += 1;
        }
    }
    if panicked > 0 {
        return Err(anyhow!("{panicked} worker thread(s) panicked"));
    }
    Ok(())
}
