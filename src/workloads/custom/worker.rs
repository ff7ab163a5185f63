//! One client thread running scripts: it chooses each transaction's script before the
//! driver asks for its class, runs it, and turns the interpreter's failures into the
//! driver's (a retryable conflict re-runs the same script, as pgbench's retries do).

use super::sql::{prepare_all, PreparedScripts, SessionSql};
use super::{Outcomes, QueryMode, ScriptOptions};
use crate::connection::Session;
use crate::workloads::script::{Client, RunError, Script};
use crate::workloads::{EventError, QueryCounters, Worker};
use anyhow::Result;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct ScriptWorker {
    client: Client,
    scripts: Arc<Vec<(Script, u32)>>,
    opts: ScriptOptions,
    prepared: PreparedScripts,
    log: Arc<Mutex<Outcomes>>,
    thread: usize,
    /// The script of the transaction under way (chosen in `next_event`).
    current: usize,
    /// This client failed in `psbench bench script`: it runs no more.
    stopped: bool,
    timings: Vec<Vec<Duration>>,
    counts: Vec<u64>,
}

impl ScriptWorker {
    pub fn new(
        client: Client,
        scripts: Arc<Vec<(Script, u32)>>,
        opts: ScriptOptions,
        log: Arc<Mutex<Outcomes>>,
        thread: usize,
        conn: &mut Session,
    ) -> Result<ScriptWorker> {
        let prepared = match opts.mode {
            QueryMode::Prepared => prepare_all(conn, &scripts)?,
            _ => scripts
                .iter()
                .map(|(s, _)| vec![None; s.command_count()])
                .collect(),
        };
        let timings = scripts
            .iter()
            .map(|(s, _)| vec![Duration::ZERO; s.command_count()])
            .collect();
        let counts = vec![0; scripts.len()];
        Ok(ScriptWorker {
            client,
            scripts,
            opts,
            prepared,
            log,
            thread,
            current: 0,
            stopped: false,
            timings,
            counts,
        })
    }
}

impl Worker for ScriptWorker {
    fn event(
        &mut self,
        conn: &mut Session,
        counters: &mut QueryCounters,
    ) -> Result<(), EventError> {
        let script = self.current;
        let mut sql = SessionSql {
            conn,
            prepared: &mut self.prepared,
            scripts: &self.scripts,
            mode: self.opts.mode,
            counters,
        };
        let timings = self
            .opts
            .per_statement
            .then(|| self.timings[script].as_mut_slice());
        let ran = self
            .client
            .run(script, &mut sql, &mut std::io::stderr().lock(), timings);
        let failed = match ran {
            Ok(()) => {
                self.counts[script] += 1;
                return Ok(());
            }
            Err(RunError::Sql(EventError::Failed(words))) => {
                format!("client {} script {script} aborted: {words}", self.thread)
            }
            Err(RunError::Sql(other)) => return Err(other),
            Err(RunError::Script {
                script,
                command,
                line,
                message,
            }) => format!(
                "client {} aborted in command {command} of script {script} ({}:{line}): {message}",
                self.thread, self.scripts[script].0.name
            ),
        };
        if self.opts.abort_on_failure {
            self.stopped = true;
            let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
            log.aborted.push(failed.clone());
        }
        Err(EventError::Failed(failed))
    }

    fn reconnected(&mut self, conn: &mut Session) -> Result<()> {
        if self.opts.mode == QueryMode::Prepared {
            self.prepared = prepare_all(conn, &self.scripts)?;
        }
        Ok(())
    }

    fn class(&self) -> usize {
        self.current
    }

    fn next_event(&mut self, _stopping: &dyn Fn() -> bool) -> bool {
        if self.stopped {
            return false;
        }
        self.current = self.client.choose();
        true
    }
}

/// Each command's time, added to the workload's when the client is done.
impl Drop for ScriptWorker {
    fn drop(&mut self) {
        if !self.opts.per_statement {
            return;
        }
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        for (script, times) in self.timings.iter().enumerate() {
            for (command, t) in times.iter().enumerate() {
                if let Some(slot) = log.timings.get_mut(script).and_then(|s| s.get_mut(command)) {
                    slot.0 += self.counts[script];
                    slot.1 += *t;
                }
            }
        }
    }
}
