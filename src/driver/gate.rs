//! The start gate: worker threads connect and prepare, then wait here until the main thread
//! has fixed the time line and opens the gate for all of them at once. And the connect slots
//! that keep those connections from arriving all at once.

use std::sync::{Condvar, Mutex};

#[derive(Default)]
pub struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    pub fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }

    pub fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

/// How many worker threads may be connecting at once. A thousand at once overflowed the
/// server's listen queue (the kernel's ListenOverflows counted it): the dropped ones waited for
/// TCP's retransmits, past 30 s on a 2-core VM (2026-12-02). 32 stays below the listen queue
/// of every server psbench runs: MariaDB's and MySQL 5.7's autosized back_log is
/// 50 + max_connections / 5 (70 at a sandbox's 100), MySQL 8.0's is max_connections.
pub const CONNECTING_AT_ONCE: usize = 32;

/// A counting semaphore: `take` waits for a free slot, the slot is free again when its guard
/// drops.
pub struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

pub struct Slot<'a>(&'a Slots);

impl Slots {
    pub fn new(n: usize) -> Self {
        Slots {
            free: Mutex::new(n),
            freed: Condvar::new(),
        }
    }

    pub fn take(&self) -> Slot<'_> {
        let mut free = self.free.lock().unwrap();
        while *free == 0 {
            free = self.freed.wait(free).unwrap();
        }
        *free -= 1;
        Slot(self)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap() += 1;
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn no_more_than_the_slots_hold_at_once() {
        let slots = Slots::new(3);
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|s| {
            for _ in 0..24 {
                s.spawn(|| {
                    let _slot = slots.take();
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(n, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    now.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 3);
        assert_eq!(*slots.free.lock().unwrap(), 3);
    }
}
