//! What the workers of one table share during a step: how far the inserter has got (the
//! deleter never passes it), the live key range, and counters of rows and queries.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

pub struct TableState {
    pub name: String,
    inserts_done: Mutex<u64>,
    inserted: Condvar,
    insert_finished: AtomicBool,
    /// No live key is below this (exact while ids have no gaps; a lower bound otherwise):
    /// the client's own low-water mark, instead of the original's periodic `min()` query.
    low_water: AtomicI64,
    /// The highest key inserted so far.
    high_water: AtomicI64,
    pub rows_inserted: AtomicU64,
    pub rows_deleted: AtomicU64,
    /// DELETEs that removed fewer rows than their LIMIT (the table ran short).
    pub short_deletes: AtomicU64,
    pub queries: AtomicU64,
    pub rows_fetched: AtomicU64,
    /// Range queries per index (market, register, pdc): the mix.
    pub range_queries: [AtomicU64; 3],
}

impl TableState {
    /// `min_id`/`max_id`: the table's key range before the step (None when empty).
    pub fn new(name: String, min_id: Option<i64>, max_id: Option<i64>) -> Self {
        let high = max_id.unwrap_or(0);
        TableState {
            name,
            inserts_done: Mutex::new(0),
            inserted: Condvar::new(),
            insert_finished: AtomicBool::new(false),
            low_water: AtomicI64::new(min_id.unwrap_or(high + 1)),
            high_water: AtomicI64::new(high),
            rows_inserted: AtomicU64::new(0),
            rows_deleted: AtomicU64::new(0),
            short_deletes: AtomicU64::new(0),
            queries: AtomicU64::new(0),
            rows_fetched: AtomicU64::new(0),
            range_queries: Default::default(),
        }
    }

    /// An INSERT of `rows` rows whose first key was `first_id` (when the server says) has
    /// committed.
    pub fn inserted(&self, first_id: Option<i64>, rows: u64) {
        self.rows_inserted.fetch_add(rows, Ordering::Relaxed);
        if let Some(first) = first_id {
            self.raise_high_water(first + rows as i64 - 1);
        }
        let mut n = self.inserts_done.lock().unwrap();
        *n += 1;
        self.inserted.notify_all();
    }

    /// The inserter has issued all its statements (or given up): nobody waits for more.
    pub fn finish_inserts(&self) {
        let _n = self.inserts_done.lock().unwrap();
        self.insert_finished.store(true, Ordering::Relaxed);
        self.inserted.notify_all();
    }

    pub fn inserts_finished(&self) -> bool {
        self.insert_finished.load(Ordering::Relaxed)
    }

    /// Wait until `k` INSERTs have committed; false when that will not happen (the inserter
    /// finished short of it, or the run is stopping).
    pub fn wait_for_inserts(&self, k: u64, stopping: &dyn Fn() -> bool) -> bool {
        let mut n = self.inserts_done.lock().unwrap();
        loop {
            if *n >= k {
                return true;
            }
            if self.inserts_finished() || stopping() {
                return false;
            }
            n = self
                .inserted
                .wait_timeout(n, Duration::from_millis(50))
                .unwrap()
                .0;
        }
    }

    /// A DELETE of the oldest rows removed `rows` rows.
    pub fn deleted(&self, asked: u64, rows: u64) {
        self.rows_deleted.fetch_add(rows, Ordering::Relaxed);
        if rows < asked {
            self.short_deletes.fetch_add(1, Ordering::Relaxed);
        }
        self.low_water.fetch_add(rows as i64, Ordering::Relaxed);
    }

    /// A key known to exist: the high-water mark is at least it.
    pub fn raise_high_water(&self, id: i64) {
        self.high_water.fetch_max(id, Ordering::Relaxed);
    }

    pub fn low_water(&self) -> i64 {
        self.low_water.load(Ordering::Relaxed)
    }

    pub fn high_water(&self) -> i64 {
        self.high_water.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_waiter_is_released_by_the_insert_it_waits_for_or_by_the_end() {
        let t = Arc::new(TableState::new("pi1".into(), Some(1), Some(100)));
        let t2 = t.clone();
        let h = std::thread::spawn(move || t2.wait_for_inserts(2, &|| false));
        t.inserted(Some(101), 50);
        t.inserted(Some(151), 50);
        assert!(h.join().unwrap());
        assert_eq!(t.high_water(), 200);
        let t3 = t.clone();
        let h = std::thread::spawn(move || t3.wait_for_inserts(3, &|| false));
        t.finish_inserts();
        assert!(!h.join().unwrap());
        t.deleted(50, 50);
        t.deleted(50, 20);
        assert_eq!(t.low_water(), 71);
        assert_eq!(t.short_deletes.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn an_empty_table_starts_above_its_keys() {
        let t = TableState::new("pi1".into(), None, None);
        assert_eq!((t.low_water(), t.high_water()), (1, 0));
    }
}
