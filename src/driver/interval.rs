//! What happened during one stretch of time: events, queries, errors and latencies per
//! transaction class. Each worker thread records into its own `IntervalStats`; the
//! collector swaps them out at interval boundaries and merges them.

use super::latency::Latencies;
use crate::workloads::QueryCounters;

/// The distributions of one transaction class (for sysbench workloads: the workload's event;
/// the Insert Benchmark would have insert, delete and query classes with their own rates).
#[derive(Clone, Debug, Default)]
pub struct ClassStats {
    /// From the intended start (open loop) or the actual start (closed loop) to the end.
    pub latency: Latencies,
    /// Actual start minus intended start; recorded only under `--rate`.
    pub lag: Latencies,
    /// Its transactions that failed (each try of a retried one).
    pub errors: u64,
}

#[derive(Clone, Debug)]
pub struct IntervalStats {
    pub classes: Vec<ClassStats>,
    pub queries: QueryCounters,
    pub events: u64,
    pub errors: u64,
    pub reconnects: u64,
}

impl IntervalStats {
    pub fn new(classes: usize) -> Self {
        IntervalStats {
            classes: vec![ClassStats::default(); classes],
            queries: QueryCounters::default(),
            events: 0,
            errors: 0,
            reconnects: 0,
        }
    }

    /// One finished transaction (all its attempts' queries included, as sysbench counts them).
    #[inline]
    pub fn record_event(
        &mut self,
        class: usize,
        latency_ns: u64,
        lag_ns: Option<u64>,
        q: &QueryCounters,
    ) {
        let c = &mut self.classes[class];
        c.latency.record(latency_ns);
        if let Some(lag) = lag_ns {
            c.lag.record(lag);
        }
        self.queries.add(q);
        self.events += 1;
    }

    pub fn add(&mut self, o: &IntervalStats) {
        for (mine, theirs) in self.classes.iter_mut().zip(&o.classes) {
            mine.latency.add(&theirs.latency);
            mine.lag.add(&theirs.lag);
            mine.errors += theirs.errors;
        }
        self.queries.add(&o.queries);
        self.events += o.events;
        self.errors += o.errors;
        self.reconnects += o.reconnects;
    }

    pub fn reset(&mut self) {
        for c in &mut self.classes {
            c.latency.reset();
            c.lag.reset();
            c.errors = 0;
        }
        self.queries = QueryCounters::default();
        self.events = 0;
        self.errors = 0;
        self.reconnects = 0;
    }

    /// All classes' latencies together (what sysbench's report shows).
    pub fn latency(&self) -> Latencies {
        self.merged(|c| &c.latency)
    }

    /// All classes' schedule lag together.
    pub fn lag(&self) -> Latencies {
        self.merged(|c| &c.lag)
    }

    fn merged(&self, pick: impl Fn(&ClassStats) -> &Latencies) -> Latencies {
        if self.classes.len() == 1 {
            return pick(&self.classes[0]).clone();
        }
        let mut all = Latencies::new();
        for c in &self.classes {
            all.add(pick(c));
        }
        all
    }

    /// Sum of event latencies: a thread's "execution time" in sysbench's fairness lines.
    pub fn busy_ns(&self) -> u64 {
        self.classes.iter().map(|c| c.latency.sum_ns()).sum()
    }
}
