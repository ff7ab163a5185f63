//! Cost mode of an Insert Benchmark entry (docs/cost-mode.md#the-insert-benchmark), on a
//! variant's server already under callgrind: the step sequence on one table at cost mode's
//! own sizes, each step's work on one connection.
//!
//! - l.i0, l.i1, l.i2: the instructions of the connection over the whole step per inserted
//!   row; l.x: those of its index build per indexed row. Each is measured twice from the
//!   same table (kept aside before the step; each attempt runs on a table rebuilt from it,
//!   and the same seed inserts the same rows, with purge held back); the two must agree
//!   within [`WRITE_TOLERANCE`], else the result is unstable.
//! - query steps: the query connection alone, writers off (their wall-clock schedule cannot
//!   be kept under callgrind), in the windows and self-check of sysbench workloads. Writers
//!   off, qr500 and qr1000 do what qr100 does: each query shape is measured once, at the
//!   first of its steps measured.
//! - `cost_workloads` may name single steps: the write steps before them run uncounted.

use super::callgrind;
use super::context::cell_seed;
use super::cost::{self, Window};
use super::file::{Study, WorkloadStep};
use super::ibench_cost_pg::{self, Measured};
use crate::connection::AdminConn;
use crate::connection::Endpoint;
use crate::results::{CostResult, CostUnit};
use crate::server::account::Account;
use crate::server::Sandbox;
use crate::workloads::ibench::{
    parse_steps, schema, IbenchOptions, QueriesOnly, QueryShape, Step, StepKind, TableState,
    WriteWork, DATABASE,
};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use std::path::Path;
use std::sync::Arc;

/// How far a write step's two attempts may differ, relative to the lower.
pub use crate::results::COST_WRITE_TOLERANCE as WRITE_TOLERANCE;

/// Said once in a document whose cost mode measured Insert Benchmark query steps.
pub const QUERY_NOTE: &str = "Cost mode of the Insert Benchmark's query steps counts the query connection alone, with the background writers off: their wall-clock schedule cannot be kept under callgrind. Writers off, a query step's rate makes no difference, so each query shape is measured once, at the first of its steps (qr100 stands for qr500 and qr1000).";

/// The entry's options at cost mode's sizes: one table, the study's `[cost]` rows.
pub fn cost_options(study: &Study, w: &WorkloadStep) -> Result<IbenchOptions> {
    let mut o = study.ibench_options(w)?;
    o.clients = 1;
    o.rows = study.cost.ibench_rows;
    o.rows_i1 = study.cost.ibench_rows_i1;
    o.rows_i2 = study.cost.ibench_rows_i2;
    Ok(o)
}

/// The entry's whole step sequence at cost mode's sizes.
fn all_steps(study: &Study, w: &WorkloadStep) -> Result<Vec<Step>> {
    let o = cost_options(study, w)?;
    let names = w
        .steps
        .as_ref()
        .map(|s| s.join(","))
        .unwrap_or_else(|| "all".into());
    parse_steps(&names, &o)
}

/// The entry's steps that get a cost result, in order: the write steps `cost_workloads`
/// selects (all when it names the entry), and the first selected step of each query shape.
pub fn measured_steps(study: &Study, w: &WorkloadStep) -> Result<Vec<Step>> {
    let whole = study.cost_selects(&w.label());
    let mut shapes: Vec<QueryShape> = Vec::new();
    Ok(all_steps(study, w)?
        .into_iter()
        .filter(|s| whole || study.cost_selects(&w.ibench_label(&s.name)))
        .filter(|s| match s.kind {
            StepKind::Query { shape, .. } if shapes.contains(&shape) => false,
            StepKind::Query { shape, .. } => {
                shapes.push(shape);
                true
            }
            _ => true,
        })
        .collect())
}

/// The cost results a workload entry gives: its label for a sysbench workload, the label of
/// each measured step for an Insert Benchmark entry.
pub fn cost_labels(study: &Study, w: &WorkloadStep) -> Vec<String> {
    if !w.is_insert_benchmark() {
        return vec![w.label()];
    }
    measured_steps(study, w)
        .map(|steps| steps.iter().map(|s| w.ibench_label(&s.name)).collect())
        .unwrap_or_default()
}

/// Where an entry's results go, step by step.
pub trait Record {
    /// Told before a step is counted.
    fn begin(&mut self, label: &str);
    /// Each counted step's result, to record and save.
    fn done(&mut self, entry: CostResult) -> Result<()>;
}

/// Run the entry's steps and hand each result to `rec`; `wanted` are the labels of the
/// results still missing. The steps run in order up to the last one counted, since each
/// needs the table the earlier ones leave: a write step not counted runs once with
/// instrumentation off, on the seed it is counted with (the same rows), and a query step not
/// counted is skipped (with the writers off it changes nothing). A failed step ends the
/// sequence.
pub fn measure_entry(
    sb: &Sandbox,
    study: &Study,
    w: &WorkloadStep,
    dumps: &Path,
    base_seed: u64,
    wanted: &[String],
    rec: &mut dyn Record,
) -> Result<()> {
    let opts = cost_options(study, w)?;
    let admin = sb.admin_endpoint();
    schema::recreate(&admin, &opts)?;
    let mut conn = AdminConn::open(&schema::in_database(&admin))?;
    let ctl = Control {
        pid: sb.pid().context("server not running")?,
        account: sb.server_account(),
        dumps,
        endpoint: schema::in_database(&admin),
        postgres: conn.is_postgres(),
    };
    let windows = w.cost_events.clone().unwrap_or(study.cost.events.clone());
    let counted: Vec<String> = measured_steps(study, w)?
        .iter()
        .map(|s| w.ibench_label(&s.name))
        .filter(|l| wanted.contains(l))
        .collect();
    let steps = all_steps(study, w)?;
    let last = steps
        .iter()
        .rposition(|s| counted.contains(&w.ibench_label(&s.name)));
    // Why the steps counted from here on cannot be: an uncounted step before them failed.
    let mut broken: Option<String> = None;
    for step in steps.into_iter().take(last.map_or(0, |i| i + 1)) {
        let label = w.ibench_label(&step.name);
        let seed = cell_seed(base_seed, 0, &label, 1);
        if !counted.contains(&label) {
            if !step.is_query() && broken.is_none() {
                if let Err(e) = run_uncounted(&ctl, &mut conn, &step, &opts, seed) {
                    broken = Some(format!("{label}, run uncounted to build the table: {e:#}"));
                }
            }
            continue;
        }
        rec.begin(&label);
        let mut entry = CostResult::new("", &label);
        entry.unit = if step.is_query() {
            CostUnit::Query
        } else {
            CostUnit::Row
        };
        if let Some(why) = broken {
            entry.error = Some(why);
            rec.done(entry)?;
            break;
        }
        let outcome = if step.is_query() {
            if ctl.postgres {
                ibench_cost_pg::settle(&mut conn, &ctl.endpoint)?;
            }
            let table = table_state(&mut conn)?;
            let queries = QueriesOnly::new(&step, &opts, table)?;
            let plan = cost::Plan {
                warmup: study.cost.warmup_events.min(windows[0]),
                windows: windows.clone(),
            };
            cost::measure_in(
                sb,
                DATABASE,
                &queries,
                &plan,
                dumps,
                seed,
                &mut |_, _, _| Ok(()),
            )
            .map(|m| (m.windows, m.estimates, m.ir_per_txn, m.unstable))
        } else {
            measure_write(&ctl, &mut conn, &step, &opts, seed)
        };
        let failed = outcome.is_err();
        match outcome {
            Ok((windows, estimates, ir, unstable)) => {
                entry.ok = true;
                entry.ir_per_txn = ir;
                entry.estimates = estimates;
                entry.unstable = unstable;
                entry.windows = windows.iter().map(Window::recorded).collect();
            }
            Err(e) => entry.error = Some(format!("{e:#}")),
        }
        rec.done(entry)?;
        if failed {
            break;
        }
    }
    drop(conn);
    let _ = schema::drop_database(&admin);
    Ok(())
}

struct Control<'a> {
    pid: i32,
    account: Option<&'a Account>,
    dumps: &'a Path,
    endpoint: Endpoint,
    postgres: bool,
}

fn table_state(conn: &mut AdminConn) -> Result<Arc<TableState>> {
    let name = schema::table_name(0);
    let f = schema::facts(conn, &name)?;
    Ok(Arc::new(TableState::new(name, f.min_id, f.max_id)))
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

/// A write step once, instrumentation off, on the table as it is.
fn run_uncounted(
    ctl: &Control,
    conn: &mut AdminConn,
    step: &Step,
    opts: &IbenchOptions,
    seed: u64,
) -> Result<()> {
    let mut session = ctl.endpoint.session()?;
    let mut work = WriteWork::prepare(&mut session, step, opts, table_state(conn)?, seed)?;
    work.before(&mut session)?;
    work.run(&mut session)?;
    Ok(())
}

/// A write step twice from the same table: instructions of the connection per row.
fn measure_write(
    ctl: &Control,
    conn: &mut AdminConn,
    step: &Step,
    opts: &IbenchOptions,
    seed: u64,
) -> Result<Measured> {
    if ctl.postgres {
        let pg = ibench_cost_pg::Counted {
            endpoint: &ctl.endpoint,
            dumps: ctl.dumps,
        };
        return pg.measure_write(conn, step, opts, seed);
    }
    let table = schema::table_name(0);
    let live = format!("{DATABASE}.{table}");
    let copy = format!("{DATABASE}.{table}_before_cost");
    conn.run(&format!("DROP TABLE IF EXISTS {copy}"))
        .and_then(|_| conn.run(&format!("RENAME TABLE {live} TO {copy}")))
        .with_context(|| format!("keeping {table} as it was before {}", step.name))?;
    let mut windows = Vec::new();
    let mut per_row = Vec::new();
    for attempt in 1..=2u32 {
        // Both attempts on a table built the same way from the copy: the same pages, the same
        // keys, nothing left to purge.
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
        let mut hold = ctl.endpoint.connect()?;
        hold.query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            .context("opening the read view that holds purge back")?;
        let mut session = ctl.endpoint.session()?;
        let mut work = WriteWork::prepare(&mut session, step, opts, table_state(conn)?, seed)?;
        work.before(&mut session)?;
        let (ctl_pid, acc, dir) = (ctl.pid, ctl.account, ctl.dumps);
        callgrind::control(&["-i", "on"], ctl_pid, acc, dir)?;
        callgrind::control(&["-z"], ctl_pid, acc, dir)?;
        let inserted = work.run(&mut session);
        callgrind::control(&["-d"], ctl_pid, acc, dir)?;
        callgrind::control(&["-i", "off"], ctl_pid, acc, dir)?;
        hold.query_drop("COMMIT")
            .context("closing the read view that held purge back")?;
        drop(hold);
        let inserted = inserted.with_context(|| format!("{} attempt {attempt}", step.name))?;
        let dump = callgrind::newest_dump(dir, ctl_pid)?;
        let thread = callgrind::busiest_thread(std::slice::from_ref(&dump))
            .with_context(|| format!("no thread of pid {ctl_pid} in the dump"))?;
        let rows = if step.kind == StepKind::Index {
            schema::facts(conn, &table)?.rows
        } else {
            inserted
        };
        anyhow::ensure!(rows > 0, "{}: no rows to count per", step.name);
        let ir = dump.threads[&thread];
        windows.push(Window {
            attempt,
            events: u32::try_from(rows).unwrap_or(u32::MAX),
            ir,
            thread,
        });
        per_row.push(ir as f64 / rows as f64);
    }
    conn.run(&format!("DROP TABLE {copy}"))?;
    Ok(ibench_cost_pg::verdict(windows, per_row))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_write_step_and_each_query_shape_once_gets_a_result() {
        let steps = r#"steps = ["l.i0", "l.x", "qr100", "qp100", "qr500", "qp1000"]"#;
        let s = with_cost_workloads(r#""point_select", "ib""#, steps).unwrap();
        assert_eq!(cost_labels(&s, &s.workloads[0]), ["point_select"]);
        assert_eq!(
            cost_labels(&s, &s.workloads[1]),
            ["ib l.i0", "ib l.x", "ib qr100", "ib qp100"]
        );
        let o = cost_options(&s, &s.workloads[1]).unwrap();
        assert_eq!(
            (o.clients, o.rows, o.rows_i1, o.rows_i2),
            (1, 20_000, 4_000, 1_000)
        );
    }

    /// A study of point select and one named Insert Benchmark entry running `ib_steps` (all
    /// steps when empty), then an unnamed entry running l.i0 and qr100.
    fn with_cost_workloads(names: &str, ib_steps: &str) -> Result<Study> {
        let text = format!(
            r#"cost_workloads = [{names}]
name = "t"
[[variant]]
name = "a"
[[workload]]
workload = "oltp_point_select"
[[workload]]
name = "ib"
workload = "insert-benchmark"
{ib_steps}
[[workload]]
workload = "insert-benchmark"
steps = ["l.i0", "qr100"]
"#
        );
        crate::study::file::parse(&text, "t.toml")
    }

    #[test]
    fn cost_workloads_may_name_single_steps_by_their_cell_label() {
        let s = with_cost_workloads(r#""ib l.i1", "ib qr500", "ib qp1000""#, "").unwrap();
        let entries = s.cost_steps();
        assert_eq!(entries.len(), 1);
        assert_eq!(
            cost_labels(&s, entries[0]),
            ["ib l.i1", "ib qr500", "ib qp1000"]
        );
        // qr100 and qr500 named together: one query shape, measured once, at the first.
        let s = with_cost_workloads(r#""ib qr100", "ib qr500""#, "").unwrap();
        assert_eq!(cost_labels(&s, s.cost_steps()[0]), ["ib qr100"]);
        // An unnamed entry's steps are named as its cells are: "l.i0" alone.
        let s = with_cost_workloads(r#""l.i0", "point_select""#, "").unwrap();
        let labels: Vec<Vec<String>> = s.cost_steps().iter().map(|w| cost_labels(&s, w)).collect();
        assert_eq!(labels, [vec!["point_select"], vec!["l.i0"]]);
        // The entry's label still stands for all its steps.
        let s = with_cost_workloads(r#""insert-benchmark""#, "").unwrap();
        assert_eq!(cost_labels(&s, s.cost_steps()[0]), ["l.i0", "qr100"]);
        // A step the entry does not run, or a step without its entry's name, is a mistake.
        for bad in [r#""qp100""#, r#""l.x""#, r#""ib l.i9""#] {
            let e = with_cost_workloads(bad, "").unwrap_err();
            assert!(crate::error::is_usage(&e), "{bad}: {e}");
            assert!(e.to_string().contains("which is no workload step"), "{e}");
        }
    }
}
