//! A capture as a workload: a worker per captured session, each statement an event whose
//! class is its kind. A statement that fails is counted under its kind with its line and
//! not run again: the replay keeps the captured order.

use super::{Capture, StatementKind};
use crate::connection::Session;
use crate::workloads::errors::classify_error;
use crate::workloads::{EventError, QueryCounters, Worker, Workload};
use anyhow::Result;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// When a session's statements are sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// At their recorded times from the replay's start, the gaps divided by `speed`.
    Recorded { speed: f64 },
    /// Each as soon as the one before it is answered.
    Fast,
}

impl Pace {
    /// `pace` and `speed` as a study or the command line gives them.
    pub fn parse(pace: &str, speed: Option<f64>) -> Result<Pace> {
        let speed = speed.unwrap_or(1.0);
        if !(speed.is_finite() && speed > 0.0) {
            return Err(crate::error::usage(format!(
                "speed must be a number above 0 (got {speed})"
            )));
        }
        match pace {
            "recorded" => Ok(Pace::Recorded { speed }),
            "fast" => Ok(Pace::Fast),
            other => Err(crate::error::usage(format!(
                "pace '{other}' is not one of recorded, fast"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Pace::Recorded { .. } => "recorded",
            Pace::Fast => "fast",
        }
    }
}

/// The statements that failed: how many of each kind, and the log's line of the first few.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Failures {
    pub per_kind: [u64; 6],
    pub lines: Vec<(StatementKind, usize)>,
}

/// How many failed lines are kept to name.
const LINES_KEPT: usize = 20;

pub struct ReplayWorkload {
    name: String,
    capture: Arc<Capture>,
    pace: Pace,
    /// Every session's statements on one connection, session after session (cost mode),
    /// each worker going on where the one before it stopped: each statement runs once.
    one_connection: Option<Arc<AtomicUsize>>,
    /// The kinds the capture holds: its classes, in [`StatementKind::ALL`]'s order.
    kinds: Vec<StatementKind>,
    /// When the first worker asked for its first statement: the recorded times count from it.
    start: Arc<Mutex<Option<Instant>>>,
    failures: Arc<Mutex<Failures>>,
}

impl ReplayWorkload {
    pub fn new(name: &str, capture: Arc<Capture>, pace: Pace) -> ReplayWorkload {
        let n = capture.per_kind();
        let kinds = StatementKind::ALL
            .into_iter()
            .filter(|k| n[*k as usize] > 0)
            .collect();
        ReplayWorkload {
            name: name.to_string(),
            capture,
            pace,
            one_connection: None,
            kinds,
            start: Arc::default(),
            failures: Arc::default(),
        }
    }

    /// The same capture with every session on one connection, in the log's order of
    /// sessions, as fast as the server answers (cost mode).
    pub fn on_one_connection(&self) -> ReplayWorkload {
        ReplayWorkload {
            name: self.name.clone(),
            capture: Arc::clone(&self.capture),
            pace: Pace::Fast,
            one_connection: Some(Arc::default()),
            kinds: self.kinds.clone(),
            start: Arc::default(),
            failures: Arc::default(),
        }
    }

    pub fn capture(&self) -> &Capture {
        &self.capture
    }

    /// The connections a replay opens: one per session.
    pub fn sessions(&self) -> usize {
        if self.one_connection.is_some() {
            1
        } else {
            self.capture.sessions.len()
        }
    }

    /// The failures since the last call.
    pub fn take_failures(&self) -> Failures {
        std::mem::take(&mut *self.failures.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The (session, statement) pairs worker `thread` sends, in order.
    fn order(&self, thread: usize) -> Vec<(usize, usize)> {
        let sessions: Vec<usize> = if self.one_connection.is_some() {
            (0..self.capture.sessions.len()).collect()
        } else {
            vec![thread]
        };
        sessions
            .into_iter()
            .flat_map(|s| (0..self.capture.sessions[s].len()).map(move |k| (s, k)))
            .collect()
    }
}

impl Workload for ReplayWorkload {
    fn name(&self) -> &str {
        &self.name
    }

    /// The dataset is the dump taken when the capture began: nothing of the replay's own.
    fn prepare(&self, _endpoint: &crate::connection::Endpoint, _t: usize, _s: u64) -> Result<()> {
        Ok(())
    }

    fn cleanup(&self, _endpoint: &crate::connection::Endpoint) -> Result<()> {
        Ok(())
    }

    fn worker(
        &self,
        thread: usize,
        threads: usize,
        _seed: u64,
        _conn: &mut Session,
    ) -> Result<Box<dyn Worker>> {
        if threads != self.sessions() {
            anyhow::bail!(
                "a replay of {} session(s) runs on as many connections, not {threads}",
                self.sessions()
            );
        }
        // A new run (every worker is made before any is released): its recorded times
        // count from its own start.
        if thread == 0 {
            *self.start.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        let mut class_of = [0usize; 6];
        for (i, k) in self.kinds.iter().enumerate() {
            class_of[*k as usize] = i;
        }
        let cursor = self.one_connection.clone();
        Ok(Box::new(ReplayWorker {
            capture: Arc::clone(&self.capture),
            order: self.order(thread),
            pos: cursor.as_ref().map_or(0, |c| c.load(Ordering::Relaxed)),
            cursor,
            pace: self.pace,
            start: Arc::clone(&self.start),
            class_of,
            failures: Arc::clone(&self.failures),
        }))
    }

    fn class_names(&self) -> Vec<String> {
        self.kinds.iter().map(|k| k.name().to_string()).collect()
    }

    fn ends_by_itself(&self) -> bool {
        true
    }

    fn unit(&self) -> Option<&'static str> {
        Some("statements")
    }

    fn describe(&self) -> Option<String> {
        let c = &self.capture;
        let n = c.per_kind();
        let kinds: Vec<String> = self
            .kinds
            .iter()
            .map(|k| format!("{} {}", n[*k as usize], k.name()))
            .collect();
        Some(format!(
            "{} replays a {}: {} session(s), {} statement(s) ({}){}, pace {}",
            self.name,
            c.format.name(),
            c.sessions.len(),
            c.statements(),
            kinds.join(", "),
            c.span_s()
                .map_or(String::new(), |s| format!(", recorded over {s:.2} s")),
            match self.pace {
                Pace::Recorded { speed } => format!("recorded at speed {speed}"),
                Pace::Fast => "fast".into(),
            }
        ))
    }

    fn take_notes(&self) -> Vec<String> {
        let f = self.take_failures();
        let failed: u64 = f.per_kind.iter().sum();
        if failed == 0 {
            return Vec::new();
        }
        let named: Vec<String> = f
            .lines
            .iter()
            .map(|(k, l)| format!("{} at line {l}", k.name()))
            .collect();
        let more = if failed as usize > named.len() {
            ", …"
        } else {
            ""
        };
        vec![format!(
            "{}: {failed} replayed statement(s) failed (is the data as it was when the capture began?): {}{more}",
            self.name,
            named.join(", ")
        )]
    }
}

struct ReplayWorker {
    capture: Arc<Capture>,
    /// (session, statement) in the order this connection sends them.
    order: Vec<(usize, usize)>,
    pos: usize,
    /// Where the next worker on the one connection starts (cost mode).
    cursor: Option<Arc<AtomicUsize>>,
    pace: Pace,
    start: Arc<Mutex<Option<Instant>>>,
    class_of: [usize; 6],
    failures: Arc<Mutex<Failures>>,
}

impl ReplayWorker {
    fn current(&self) -> &super::Statement {
        let (s, k) = self.order[self.pos];
        &self.capture.sessions[s][k]
    }

    fn advance(&mut self) {
        self.pos += 1;
        if let Some(c) = &self.cursor {
            c.store(self.pos, Ordering::Relaxed);
        }
    }
}

impl Worker for ReplayWorker {
    fn event(
        &mut self,
        conn: &mut Session,
        counters: &mut QueryCounters,
    ) -> std::result::Result<(), EventError> {
        if self.pos >= self.order.len() {
            // Cost mode's windows asked for more statements than the log holds.
            return Err(EventError::Fatal(anyhow::anyhow!(
                "the log's {} statement(s) ran out before cost mode's windows did: give the \
                 step smaller cost_events",
                self.order.len()
            )));
        }
        let st = self.current();
        let (kind, line) = (st.kind, st.line);
        let ran = conn.query(&st.sql);
        match ran {
            Ok(o) => {
                if o.result_set {
                    counters.reads += 1;
                } else if o.affected_rows > 0 {
                    counters.writes += 1;
                } else {
                    counters.other += 1;
                }
                self.advance();
                Ok(())
            }
            // Its text stays here: the log's line and the statement's kind name it.
            Err(e) => match classify_error(e, "") {
                EventError::ConnectionLost(m) => Err(EventError::ConnectionLost(m)),
                _ => {
                    self.advance();
                    let mut f = self.failures.lock().unwrap_or_else(|e| e.into_inner());
                    f.per_kind[kind as usize] += 1;
                    if f.lines.len() < LINES_KEPT {
                        f.lines.push((kind, line));
                    }
                    Err(EventError::Failed(format!(
                        "{} at line {line}",
                        kind.name()
                    )))
                }
            },
        }
    }

    fn reconnected(&mut self, _conn: &mut Session) -> Result<()> {
        Ok(())
    }

    fn class(&self) -> usize {
        self.class_of[self.current().kind as usize]
    }

    fn next_event(&mut self, stopping: &dyn Fn() -> bool) -> bool {
        if self.pos >= self.order.len() {
            return false;
        }
        let Pace::Recorded { speed } = self.pace else {
            return true;
        };
        let start = *self
            .start
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(Instant::now);
        let Some(at) = self.current().at_us else {
            return true;
        };
        let due = start + Duration::from_secs_f64(at as f64 / 1e6 / speed);
        // Sleep in short steps, so that a stop is not kept waiting for a long recorded gap.
        loop {
            let now = Instant::now();
            if now >= due {
                return true;
            }
            if stopping() {
                return false;
            }
            std::thread::sleep((due - now).min(Duration::from_millis(100)));
        }
    }
}
