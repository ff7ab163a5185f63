//! One worker thread's loop: wait for the transaction's turn, run it (retrying and
//! reconnecting as sysbench does), time it, record it in the thread's own slot.

use super::reconnect::reconnect;
use super::shared::{Shared, Timeline};
use crate::connection::Endpoint;
use crate::connection::Session;
use crate::workloads::{EventError, Pace, QueryCounters, Worker};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Run transactions until `--time`, `--events`, or a stop; a fatal error is handed to
/// `shared.fail`.
pub fn run_thread(
    id: usize,
    shared: &Shared,
    endpoint: &Endpoint,
    conn: &mut Session,
    worker: &mut dyn Worker,
    pace: Pace,
) {
    let tl: Timeline = *shared
        .timeline
        .get()
        .expect("the timeline is fixed before threads are released");
    let schedule = shared.schedule.get().filter(|_| pace == Pace::Run);
    let own = match pace {
        Pace::Every { every, offset } => Some((tl.released + offset, every)),
        Pace::Run => None,
    };
    if schedule.is_some() || own.is_some() {
        precise_sleeps();
    }
    let stopping = || shared.stopping();
    let mut k: u32 = 0;
    loop {
        if shared.stopping() || !worker.next_event(&stopping) {
            break;
        }
        // When this transaction is meant to start (now in a closed loop, its arrival in an
        // open loop) and when it actually starts.
        let (due, began) = match (schedule, own) {
            (_, Some((first, every))) => {
                let due = first + every * k;
                k += 1;
                if tl.is_over(due) {
                    break;
                }
                sleep_until(due);
                (due, Instant::now())
            }
            (None, None) => {
                let now = Instant::now();
                if tl.is_over(now) {
                    break;
                }
                (now, now)
            }
            (Some(s), None) => {
                let due = s.claim();
                if tl.is_over(due) {
                    break;
                }
                sleep_until(due);
                let now = Instant::now();
                if tl.is_over(now) {
                    // Due within --time but the backlog kept it waiting past the end.
                    shared.dropped.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                (due, now)
            }
        };
        let measured = due >= tl.measure_start;
        if measured && !shared.take_event_ticket() {
            break;
        }

        if schedule.is_some() {
            shared.in_flight.fetch_add(1, Ordering::Relaxed);
        }
        let class = worker.class();
        let mut queries = QueryCounters::default();
        let outcome = execute(
            id,
            shared,
            endpoint,
            conn,
            worker,
            &mut queries,
            (measured, class),
        );
        if schedule.is_some() {
            shared.in_flight.fetch_sub(1, Ordering::Relaxed);
        }
        let completed = match outcome {
            Ok(completed) => completed,
            Err(fatal) => {
                if let Some(e) = fatal {
                    shared.fail(e);
                }
                break;
            }
        };
        if measured && completed {
            let latency = nanos(Instant::now() - due);
            let lag = (schedule.is_some() || own.is_some()).then(|| nanos(began - due));
            shared.slots[id]
                .lock()
                .unwrap()
                .record_event(class, latency, lag, &queries);
        }
    }
}

/// Run one event to completion: retryable errors re-run it (its latency keeps running, as in
/// sysbench), a lost connection is re-established first. `Ok(false)`: the transaction
/// failed and counts as an error only; `Err(None)`: abandoned because the run is stopping;
/// `Err(Some(e))`: fatal.
fn execute(
    id: usize,
    shared: &Shared,
    endpoint: &Endpoint,
    conn: &mut Session,
    worker: &mut dyn Worker,
    queries: &mut QueryCounters,
    (measured, class): (bool, usize),
) -> Result<bool, Option<anyhow::Error>> {
    let count_error = || {
        let mut slot = shared.slots[id].lock().unwrap();
        slot.errors += 1;
        if let Some(c) = slot.classes.get_mut(class) {
            c.errors += 1;
        }
    };
    loop {
        match worker.event(conn, queries) {
            Ok(()) => return Ok(true),
            Err(EventError::Failed(_)) => {
                conn.end_failed_transaction();
                if measured {
                    count_error();
                }
                return Ok(false);
            }
            Err(EventError::Retryable { .. }) => {
                conn.end_failed_transaction();
                if measured {
                    count_error();
                }
                if shared.stopping() {
                    return Err(None);
                }
            }
            Err(EventError::ConnectionLost(msg)) => {
                reconnect(endpoint, conn, worker, &msg)
                    .map_err(|e| Some(e.context(format!("thread {id}"))))?;
                if measured {
                    shared.slots[id].lock().unwrap().reconnects += 1;
                }
            }
            Err(EventError::Fatal(e)) => return Err(Some(e)),
        }
    }
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u64::MAX as u128) as u64
}

fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        std::thread::sleep(t - now);
    }
}

/// Open-loop threads sleep between arrivals; the default 50 µs timer slack would add up to
/// 50 µs of schedule lag to every one of them.
fn precise_sleeps() {
    // SAFETY: PR_SET_TIMERSLACK only changes this thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}
