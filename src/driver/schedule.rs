//! The open-loop (`--rate`) schedule: one Poisson arrival process shared by all threads.
//!
//! Arrivals are generated lazily. A thread that is free claims the earliest arrival nobody
//! has taken yet and sleeps until it; when the threads fall behind, the arrivals pile up in
//! `pending` (the backlog, sysbench's "queue length") and latency, measured from each
//! arrival, grows with it.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct Schedule {
    origin: Instant,
    mean_gap_s: f64,
    state: Mutex<State>,
}

struct State {
    rng: SmallRng,
    /// Offset from `origin` of the first arrival not generated yet.
    next: Duration,
    /// Arrivals generated (because their time has come) but not claimed by a thread yet.
    pending: VecDeque<Duration>,
}

impl Schedule {
    /// `rate` transactions per second on average, starting at `origin`.
    pub fn new(rate: f64, origin: Instant, seed: u64) -> Self {
        let mean_gap_s = 1.0 / rate;
        let mut rng = SmallRng::seed_from_u64(seed);
        let next = gap(&mut rng, mean_gap_s);
        Schedule {
            origin,
            mean_gap_s,
            state: Mutex::new(State {
                rng,
                next,
                pending: VecDeque::new(),
            }),
        }
    }

    /// The intended start of the next transaction, for the thread that will run it.
    pub fn claim(&self) -> Instant {
        let mut st = self.state.lock().unwrap();
        let at = match st.pending.pop_front() {
            Some(at) => at,
            None => {
                let at = st.next;
                let g = gap(&mut st.rng, self.mean_gap_s);
                st.next += g;
                at
            }
        };
        self.origin + at
    }

    /// Arrivals whose time has come by `now` and that no thread has started yet.
    pub fn backlog(&self, now: Instant) -> usize {
        let until = now.saturating_duration_since(self.origin);
        let mut st = self.state.lock().unwrap();
        while st.next <= until {
            let at = st.next;
            st.pending.push_back(at);
            let g = gap(&mut st.rng, self.mean_gap_s);
            st.next += g;
        }
        st.pending.len()
    }
}

/// An exponential inter-arrival gap with the given mean.
fn gap(rng: &mut SmallRng, mean_s: f64) -> Duration {
    // 1 - U is in (0, 1], so ln never sees 0.
    let u: f64 = 1.0 - rng.random::<f64>();
    Duration::from_secs_f64(-u.ln() * mean_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_mean_rate_and_order() {
        let origin = Instant::now();
        let s = Schedule::new(1000.0, origin, 42);
        let mut last = origin;
        let n = 20_000;
        for _ in 0..n {
            let t = s.claim();
            assert!(t >= last);
            last = t;
        }
        let rate = n as f64 / (last - origin).as_secs_f64();
        assert!((rate - 1000.0).abs() < 30.0, "{rate}");
    }

    #[test]
    fn backlog_counts_unclaimed_arrivals_in_order() {
        let origin = Instant::now();
        let s = Schedule::new(1000.0, origin, 7);
        let n = s.backlog(origin + Duration::from_secs(2));
        assert!((1800..2200).contains(&n), "{n}");
        // Claims take the backlog oldest first, then continue past it.
        let first = s.claim();
        assert!(first < origin + Duration::from_millis(50));
        assert_eq!(s.backlog(origin + Duration::from_secs(2)), n - 1);
    }
}
