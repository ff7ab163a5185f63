//! Getting a worker's connection back after it was lost.

use crate::connection::Endpoint;
use crate::connection::Session;
use crate::workloads::Worker;
use anyhow::{anyhow, Result};
use std::time::{Duration, Instant};

/// How long a thread keeps trying before the lost connection ends the run.
const RECONNECT_FOR: Duration = Duration::from_secs(10);
/// Pause between attempts (sysbench retries every 1 ms; a little gentler here).
const RECONNECT_PAUSE: Duration = Duration::from_millis(10);

/// Open a new connection in place of `conn` and let the worker prepare its statements on it.
pub fn reconnect(
    endpoint: &Endpoint,
    conn: &mut Session,
    worker: &mut dyn Worker,
    lost: &str,
) -> Result<()> {
    let deadline = Instant::now() + RECONNECT_FOR;
    let mut last_error;
    loop {
        match endpoint.session() {
            Ok(fresh) => {
                *conn = fresh;
                match worker.reconnected(conn) {
                    Ok(()) => return Ok(()),
                    Err(e) => last_error = format!("{e:#}"),
                }
            }
            Err(e) => last_error = format!("{e:#}"),
        }
        if Instant::now() >= deadline {
            return Err(anyhow!(
                "connection lost ({lost}) and not re-established within {} s: {last_error}",
                RECONNECT_FOR.as_secs()
            ));
        }
        std::thread::sleep(RECONNECT_PAUSE);
    }
}
