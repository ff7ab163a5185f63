//! Where a study stands while it runs, handed to whoever asked (the command writes the report
//! so far): once cost mode's counts are in, and after each throughput round. The first answer
//! then comes minutes into a study, not at its end.

use crate::results::StudyResults;
use std::time::{Duration, Instant};

/// A study still running: how many of this run's throughput rounds are done, and about how
/// long the rest should take.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub rounds_done: u32,
    pub rounds: u32,
    pub left: Duration,
    /// The time left comes from rounds measured in this run (else from the plan's model).
    pub measured: bool,
}

impl Standing {
    /// The first line of a report of a study still running: "running: round 2 of 3, about
    /// 3 min left".
    pub fn line(&self) -> String {
        let minutes = (self.left.as_secs_f64() / 60.0).ceil().max(1.0) as u64;
        let how = if self.measured {
            "from the rounds so far"
        } else {
            "as planned"
        };
        format!(
            "running: round {} of {}, about {minutes} min left ({how})",
            (self.rounds_done + 1).min(self.rounds),
            self.rounds
        )
    }
}

/// What the command does at each checkpoint: it gets the document so far and returns a text
/// to show above the progress bar, if any. It cannot fail the study: a report it could not
/// write is its own warning.
pub type Checkpoint = Box<dyn Fn(&StudyResults, &Standing) -> Option<String>>;

/// The throughput rounds' clock: the time left from the rounds done, or before the first from
/// the model.
pub struct Rounds {
    started: Instant,
    pub total: u32,
    pub done: u32,
    planned_per_round: Duration,
}

impl Rounds {
    pub fn new(total: u32, planned_per_round: Duration) -> Self {
        Rounds {
            started: Instant::now(),
            total,
            done: 0,
            planned_per_round,
        }
    }

    /// Called as the throughput rounds begin: cost mode's time is not theirs.
    pub fn restart(&mut self) {
        self.started = Instant::now();
    }

    pub fn standing(&self) -> Standing {
        let left_rounds = self.total.saturating_sub(self.done);
        match self.done {
            0 => Standing {
                rounds_done: 0,
                rounds: self.total,
                left: self.planned_per_round * left_rounds,
                measured: false,
            },
            done => Standing {
                rounds_done: done,
                rounds: self.total,
                left: self.started.elapsed() / done * left_rounds,
                measured: true,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_round_running_and_the_minutes_left() {
        let s = Standing {
            rounds_done: 1,
            rounds: 3,
            left: Duration::from_secs(150),
            measured: true,
        };
        assert_eq!(
            s.line(),
            "running: round 2 of 3, about 3 min left (from the rounds so far)"
        );
        let first = Standing {
            rounds_done: 0,
            left: Duration::from_secs(20),
            measured: false,
            ..s
        };
        assert_eq!(
            first.line(),
            "running: round 1 of 3, about 1 min left (as planned)"
        );
    }

    #[test]
    fn the_time_left_is_the_plan_before_a_round_and_measured_after() {
        let mut r = Rounds::new(4, Duration::from_secs(60));
        assert_eq!(r.standing().left, Duration::from_secs(240));
        assert!(!r.standing().measured);
        r.started = Instant::now() - Duration::from_secs(100);
        r.done = 2;
        let s = r.standing();
        assert!(s.measured);
        // 50 s per round measured, two rounds left.
        let left = s.left.as_secs_f64();
        assert!((99.0..102.0).contains(&left), "{left}");
    }
}
