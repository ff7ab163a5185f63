//! The Insert Benchmark's write steps counted on the serving thread
//! (docs/cost-mode.md#the-insert-benchmark): the step's connection, with the threads that
//! worked for its statements, is counted over the whole step, twice (a third time when the
//! two disagree), each time on a table
//! rebuilt from a copy taken before the step, with InnoDB's purge caught up before and held
//! back during the counted work.

use super::callgrind;
use super::dumps;
use super::target::Target;
use super::windows::{CostMeasurement, Window};
use super::write_steps::{agree, table_state, verdict};
use crate::connection::AdminConn;
use crate::workloads::ibench::{schema, IbenchOptions, Step, StepKind, WriteWork, DATABASE};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;

/// A write step twice from the same table: instructions of the connection per row.
pub fn measure_write(
    target: &Target,
    conn: &mut AdminConn,
    step: &Step,
    opts: &IbenchOptions,
    seed: u64,
) -> Result<CostMeasurement> {
    let table = schema::table_name(0);
    let live = format!("{DATABASE}.{table}");
    let copy = format!("{DATABASE}.{table}_before_cost");
    conn.run(&format!("DROP TABLE IF EXISTS {copy}"))
        .and_then(|_| conn.run(&format!("RENAME TABLE {live} TO {copy}")))
        .with_context(|| format!("keeping {table} as it was before {}", step.name))?;
    let mut windows = Vec::new();
    let mut per_row = Vec::new();
    for attempt in 1..=3u32 {
        // Threads that share a statement's work (an index build's parallel readers) spin
        // while they wait for each other, more on a loaded host: two attempts of l.x differed
        // by 2.4% beside other tests, where alone they agree within 0.4%. So a third attempt
        // is taken when the first two disagree, and the closest pair is judged.
        if attempt == 3 && agree(per_row[0], per_row[1]) {
            break;
        }
        // Every attempt on a table built the same way from the copy: the same pages, the
        // same keys, nothing left to purge.
        conn.run(&format!("DROP TABLE IF EXISTS {live}"))
            .and_then(|_| conn.run(&format!("CREATE TABLE {live} LIKE {copy}")))
            .and_then(|_| conn.run(&format!("INSERT INTO {live} SELECT * FROM {copy}")))
            .with_context(|| {
                format!("rebuilding {table} for attempt {attempt} of {}", step.name)
            })?;
        quiesce(conn)?;
        // A read view held open on its own connection keeps InnoDB's purge off the rows this
        // attempt deletes: whether purge got to a page before the connection's next insert
        // did depends on thread timing under callgrind, and moved l.i1 and l.i2 by 0.6–5%.
        let mut hold = target.endpoint.connect()?;
        hold.query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            .context("opening the read view that holds purge back")?;
        let mut session = target.endpoint.session()?;
        let mut work = WriteWork::prepare(&mut session, step, opts, table_state(conn)?, seed)?;
        work.before(&mut session)?;
        callgrind::control(&["-i", "on"], target)?;
        callgrind::control(&["-z"], target)?;
        let inserted = work.run(&mut session);
        callgrind::control(&["-d"], target)?;
        callgrind::control(&["-i", "off"], target)?;
        hold.query_drop("COMMIT")
            .context("closing the read view that held purge back")?;
        drop(hold);
        let inserted = inserted.with_context(|| format!("{} attempt {attempt}", step.name))?;
        let pid = target.pid;
        let dump = dumps::newest_dump(&target.dumps, pid)?;
        // The connection's thread, and the threads that worked for its statement: MySQL
        // builds an index on InnoDB's parallel reader threads (docs/cost-mode.md).
        let thread = dumps::serving_thread(&dump)
            .with_context(|| format!("no thread of pid {pid} in the dump"))?;
        dumps::check_request_reads(std::slice::from_ref(&dump), thread, pid)?;
        let rows = if step.kind == StepKind::Index {
            schema::facts(conn, &table)?.rows
        } else {
            inserted
        };
        anyhow::ensure!(rows > 0, "{}: no rows to count per", step.name);
        let ir = dumps::statement_ir(&dump, thread);
        windows.push(Window {
            attempt,
            events: u32::try_from(rows).unwrap_or(u32::MAX),
            ir,
            thread,
        });
        per_row.push(ir as f64 / rows as f64);
    }
    conn.run(&format!("DROP TABLE {copy}"))?;
    Ok(verdict(windows, per_row))
}

/// Wait until InnoDB's purge has caught up (history list empty), so that no purge of the
/// table rebuilt just before runs beside an attempt's counted work. At most a minute: after
/// that the attempt runs anyway, and its agreement check says whether it mattered.
fn quiesce(conn: &mut AdminConn) -> Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let len = conn
            .rows("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'")
            .context("reading InnoDB's history list length")?
            .first()
            .and_then(|r| r.get(1).cloned().flatten())
            .and_then(|v| v.parse::<u64>().ok());
        match len {
            Some(n) if n > 0 && std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(100))
            }
            _ => return Ok(()),
        }
    }
}
