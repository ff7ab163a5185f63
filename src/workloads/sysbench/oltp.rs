//! The oltp_* scripts that share oltp_common.lua's statements (docs/sysbench-compat.md#the-ten-workloads): which
//! statement groups an event runs, and running them with sysbench's draws in its order.

use super::options::OltpOptions;
use super::sql;
use super::statement::{Param, Statement};
use crate::connection::Session;
use crate::workloads::random::{fill_template, RangeSampler, Rng, C_TEMPLATE, PAD_TEMPLATE};
use crate::workloads::{EventError, QueryCounters, Worker};
use anyhow::Result;

/// What one event of an oltp_* script does; counts of 0 keep the group (and its table
/// draw) but run no statement, as in the Lua loops.
#[derive(Clone, Debug)]
pub struct Plan {
    pub transaction: bool,
    pub point_selects: Option<u32>,
    /// Simple, SUM, ORDER BY, DISTINCT counts; `None` when range selects are off.
    pub ranges: Option<[u32; 4]>,
    pub index_updates: Option<u32>,
    pub non_index_updates: Option<u32>,
    pub delete_inserts: Option<u32>,
    /// oltp_delete: one DELETE, no INSERT.
    pub delete_only: bool,
}

impl Plan {
    pub fn for_script(name: &str, o: &OltpOptions) -> Option<Plan> {
        let none = Plan {
            transaction: false,
            point_selects: None,
            ranges: None,
            index_updates: None,
            non_index_updates: None,
            delete_inserts: None,
            delete_only: false,
        };
        let ranges = o.range_selects.then_some([
            o.simple_ranges,
            o.sum_ranges,
            o.order_ranges,
            o.distinct_ranges,
        ]);
        let plan = match name {
            // The script forces point_selects to 1.
            "oltp_point_select" => Plan {
                point_selects: Some(1),
                ..none
            },
            "oltp_read_only" => Plan {
                transaction: !o.skip_trx,
                point_selects: Some(o.point_selects),
                ranges,
                ..none
            },
            "oltp_read_write" => Plan {
                transaction: !o.skip_trx,
                point_selects: Some(o.point_selects),
                ranges,
                index_updates: Some(o.index_updates),
                non_index_updates: Some(o.non_index_updates),
                delete_inserts: Some(o.delete_inserts),
                delete_only: false,
            },
            "oltp_write_only" => Plan {
                transaction: !o.skip_trx,
                index_updates: Some(o.index_updates),
                non_index_updates: Some(o.non_index_updates),
                delete_inserts: Some(o.delete_inserts),
                ..none
            },
            "oltp_update_index" => Plan {
                index_updates: Some(o.index_updates),
                ..none
            },
            "oltp_update_non_index" => Plan {
                non_index_updates: Some(o.non_index_updates),
                ..none
            },
            "oltp_delete" => Plan {
                delete_only: true,
                ..none
            },
            _ => return None,
        };
        Some(plan)
    }
}

/// One table's statements; `None` where the script does not prepare the group.
#[derive(Debug, Default)]
struct TableStatements {
    point: Option<Statement>,
    /// Simple, SUM, ORDER BY, DISTINCT.
    ranges: Option<[Statement; 4]>,
    index_update: Option<Statement>,
    non_index_update: Option<Statement>,
    delete: Option<Statement>,
    insert: Option<Statement>,
}

#[derive(Debug)]
struct Statements {
    begin: Option<Statement>,
    commit: Option<Statement>,
    tables: Vec<TableStatements>,
}

impl Statements {
    fn prepare(conn: &mut Session, plan: &Plan, tables: u32, prepared: bool) -> Result<Statements> {
        let mut make = |text: &str| Statement::new(conn, text, prepared);
        let (begin, commit) = if plan.transaction {
            (Some(make(sql::BEGIN)?), Some(make(sql::COMMIT)?))
        } else {
            (None, None)
        };
        let mut per_table = Vec::with_capacity(tables as usize);
        for t in 1..=tables {
            let mut ts = TableStatements::default();
            if plan.point_selects.is_some() {
                ts.point = Some(make(&sql::point_select(t))?);
            }
            if plan.ranges.is_some() {
                ts.ranges = Some([
                    make(&sql::simple_range(t))?,
                    make(&sql::sum_range(t))?,
                    make(&sql::order_range(t))?,
                    make(&sql::distinct_range(t))?,
                ]);
            }
            if plan.index_updates.is_some() {
                ts.index_update = Some(make(&sql::index_update(t))?);
            }
            if plan.non_index_updates.is_some() {
                ts.non_index_update = Some(make(&sql::non_index_update(t))?);
            }
            if plan.delete_inserts.is_some() || plan.delete_only {
                ts.delete = Some(make(&sql::delete(t))?);
            }
            if plan.delete_inserts.is_some() {
                ts.insert = Some(make(&sql::insert(t))?);
            }
            per_table.push(ts);
        }
        Ok(Statements {
            begin,
            commit,
            tables: per_table,
        })
    }
}

pub struct OltpWorker {
    plan: Plan,
    tables: u32,
    range_size: u32,
    prepared: bool,
    rng: Rng,
    ids: RangeSampler,
    stmts: Statements,
    // Reused buffers: the hot path allocates no strings of its own.
    c: Vec<u8>,
    pad: Vec<u8>,
    sql: String,
}

impl OltpWorker {
    pub fn new(conn: &mut Session, plan: Plan, opts: &OltpOptions, rng: Rng) -> Result<OltpWorker> {
        let prepared = opts.db_ps_mode == super::options::PsMode::Auto;
        let stmts = Statements::prepare(conn, &plan, opts.tables, prepared)?;
        Ok(OltpWorker {
            plan,
            tables: opts.tables,
            range_size: opts.range_size,
            prepared,
            rng,
            ids: RangeSampler::new(opts.distribution(), 1, opts.table_size),
            stmts,
            c: Vec::with_capacity(C_TEMPLATE.len()),
            pad: Vec::with_capacity(PAD_TEMPLATE.len()),
            sql: String::with_capacity(512),
        })
    }

    fn table(&mut self) -> usize {
        self.rng.uniform(1, self.tables) as usize - 1
    }

    fn id(&mut self) -> i64 {
        i64::from(self.ids.sample(&mut self.rng))
    }
}

impl Worker for OltpWorker {
    fn event(
        &mut self,
        conn: &mut Session,
        counters: &mut QueryCounters,
    ) -> Result<(), EventError> {
        if let Some(begin) = &mut self.stmts.begin {
            begin.run(conn, &[], &mut self.sql, counters)?;
        }
        if let Some(n) = self.plan.point_selects {
            let t = self.table();
            for _ in 0..n {
                let id = self.id();
                let stmt = self.stmts.tables[t]
                    .point
                    .as_mut()
                    .expect("prepared with the plan");
                stmt.run(conn, &[Param::Int(id)], &mut self.sql, counters)?;
            }
        }
        if let Some(counts) = self.plan.ranges {
            for (kind, n) in counts.into_iter().enumerate() {
                let t = self.table();
                for _ in 0..n {
                    let x = self.id();
                    let hi = x + i64::from(self.range_size) - 1;
                    let stmt = &mut self.stmts.tables[t]
                        .ranges
                        .as_mut()
                        .expect("prepared with the plan")[kind];
                    stmt.run(
                        conn,
                        &[Param::Int(x), Param::Int(hi)],
                        &mut self.sql,
                        counters,
                    )?;
                }
            }
        }
        if let Some(n) = self.plan.index_updates {
            let t = self.table();
            for _ in 0..n {
                let id = self.id();
                let stmt = self.stmts.tables[t]
                    .index_update
                    .as_mut()
                    .expect("prepared with the plan");
                stmt.run(conn, &[Param::Int(id)], &mut self.sql, counters)?;
            }
        }
        if let Some(n) = self.plan.non_index_updates {
            let t = self.table();
            for _ in 0..n {
                fill_template(&mut self.rng, C_TEMPLATE, &mut self.c);
                let id = self.id();
                let stmt = self.stmts.tables[t]
                    .non_index_update
                    .as_mut()
                    .expect("prepared with the plan");
                stmt.run(
                    conn,
                    &[Param::Str(&self.c), Param::Int(id)],
                    &mut self.sql,
                    counters,
                )?;
            }
        }
        if let Some(n) = self.plan.delete_inserts {
            let t = self.table();
            for _ in 0..n {
                let id = self.id();
                let k = self.id();
                fill_template(&mut self.rng, C_TEMPLATE, &mut self.c);
                fill_template(&mut self.rng, PAD_TEMPLATE, &mut self.pad);
                let ts = &mut self.stmts.tables[t];
                let (delete, insert) = (ts.delete.as_mut(), ts.insert.as_mut());
                let (delete, insert) = (delete.expect("prepared"), insert.expect("prepared"));
                delete.run(conn, &[Param::Int(id)], &mut self.sql, counters)?;
                let params = [
                    Param::Int(id),
                    Param::Int(k),
                    Param::Str(&self.c),
                    Param::Str(&self.pad),
                ];
                insert.run(conn, &params, &mut self.sql, counters)?;
            }
        }
        if self.plan.delete_only {
            let t = self.table();
            let id = self.id();
            let stmt = self.stmts.tables[t]
                .delete
                .as_mut()
                .expect("prepared with the plan");
            stmt.run(conn, &[Param::Int(id)], &mut self.sql, counters)?;
        }
        if let Some(commit) = &mut self.stmts.commit {
            commit.run(conn, &[], &mut self.sql, counters)?;
        }
        Ok(())
    }

    fn reconnected(&mut self, conn: &mut Session) -> Result<()> {
        self.stmts = Statements::prepare(conn, &self.plan, self.tables, self.prepared)?;
        Ok(())
    }
}
