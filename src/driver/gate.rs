//! The start gate: worker threads connect and prepare, then wait here until the main thread
//! has fixed the time line and opens the gate for all of them at once.

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
