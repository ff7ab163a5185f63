//! The workers of a step, one connection each (docs/insert-benchmark.md#workers): an inserter, a
//! deleter that follows it statement by statement, a query worker, and l.x's indexer.

use super::options::IbenchOptions;
use super::rows::{insert_sql, Batch, RowMaker};
use super::schema::{add_indexes, index_name, INDEXES};
use super::steps::QueryShape;
use super::table::TableState;
use crate::connection::wire::Value;
use crate::connection::{Dialect, Prepared, Session};
use crate::workloads::random::Rng;
use crate::workloads::{classify_error, EventError, QueryCounters, Worker};
use anyhow::{Context, Result};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The transaction classes every step reports, in this order.
pub const CLASSES: [&str; 4] = ["insert", "delete", "query", "create_index"];
pub const INSERT: usize = 0;
pub const DELETE: usize = 1;
pub const QUERY: usize = 2;
pub const INDEX: usize = 3;

fn prepare(conn: &mut Session, sql: &str) -> Result<Prepared> {
    conn.prepare(sql)
        .with_context(|| format!("preparing `{sql}`"))
}

/// Multi-row INSERTs of `rows` rows, `total` of them.
pub struct Inserter {
    table: Arc<TableState>,
    sql: String,
    stmt: Prepared,
    rows: usize,
    maker: RowMaker,
    batch: Batch,
    done: u64,
    total: u64,
    /// Throttled: one statement per period. The inserter then stays until the end of its
    /// last period, so that a query step lasts its length when the rate is kept.
    period: Option<Duration>,
    started: Option<Instant>,
}

impl Inserter {
    pub fn throttled(mut self, period: Option<Duration>) -> Self {
        self.period = period;
        self
    }

    /// Wait out the last period (in short sleeps, so that a stopping run is not held up).
    fn finish_last_period(&self, stopping: &dyn Fn() -> bool) {
        let (Some(p), Some(start)) = (self.period, self.started) else {
            return;
        };
        let end = start + p * self.total as u32;
        while !stopping() {
            let now = Instant::now();
            if now >= end {
                break;
            }
            std::thread::sleep((end - now).min(Duration::from_millis(50)));
        }
    }

    pub fn new(
        conn: &mut Session,
        table: Arc<TableState>,
        o: &IbenchOptions,
        rows: u64,
        total: u64,
        rng: Rng,
    ) -> Result<Self> {
        let sql = insert_sql(&table.name, rows as usize);
        Ok(Inserter {
            stmt: prepare(conn, &sql)?,
            sql,
            table,
            rows: rows as usize,
            maker: RowMaker::new(o, rng),
            batch: Batch::default(),
            done: 0,
            total,
            period: None,
            started: None,
        })
    }

    fn insert(&mut self, conn: &mut Session, q: &mut QueryCounters) -> Result<(), EventError> {
        self.maker.fill(self.rows, &mut self.batch);
        let done = conn
            .execute(&mut self.stmt, &self.batch.values())
            .map_err(|e| classify_error(e, &self.sql))?;
        // Where the answer carries no key, the high-water mark is read by the point queries'
        // worker instead.
        let first = conn
            .dialect()
            .reports_insert_id()
            .then_some(done.last_insert_id as i64);
        self.table.inserted(first, done.affected_rows);
        q.writes += 1;
        self.done += 1;
        Ok(())
    }
}

impl Worker for Inserter {
    fn event(&mut self, conn: &mut Session, q: &mut QueryCounters) -> Result<(), EventError> {
        self.insert(conn, q)
    }
    fn reconnected(&mut self, conn: &mut Session) -> Result<()> {
        self.stmt = prepare(conn, &self.sql)?;
        Ok(())
    }
    fn class(&self) -> usize {
        INSERT
    }
    fn next_event(&mut self, stopping: &dyn Fn() -> bool) -> bool {
        // The first call comes when the threads are released: the schedule's origin.
        self.started.get_or_insert_with(Instant::now);
        if self.done >= self.total {
            self.finish_last_period(stopping);
            self.table.finish_inserts();
            return false;
        }
        true
    }
}

impl Drop for Inserter {
    /// Also when the run stops early: nobody may wait for inserts that will not come.
    fn drop(&mut self) {
        self.table.finish_inserts();
    }
}

/// One DELETE of the oldest rows per committed INSERT, never ahead of it, so the row count
/// stays constant (the original pairs them through bounded queues).
pub struct Deleter {
    table: Arc<TableState>,
    sql: String,
    stmt: Prepared,
    rows: u64,
    done: u64,
    total: u64,
}

impl Deleter {
    pub fn new(conn: &mut Session, table: Arc<TableState>, rows: u64, total: u64) -> Result<Self> {
        let sql = delete_sql(&table.name, rows, conn.dialect());
        Ok(Deleter {
            stmt: prepare(conn, &sql)?,
            sql,
            table,
            rows,
            done: 0,
            total,
        })
    }
}

impl Worker for Deleter {
    fn event(&mut self, conn: &mut Session, q: &mut QueryCounters) -> Result<(), EventError> {
        let done = conn
            .execute(&mut self.stmt, &[Value::Int(self.table.low_water())])
            .map_err(|e| classify_error(e, &self.sql))?;
        self.table.deleted(self.rows, done.affected_rows);
        q.writes += 1;
        self.done += 1;
        Ok(())
    }
    fn reconnected(&mut self, conn: &mut Session) -> Result<()> {
        self.stmt = prepare(conn, &self.sql)?;
        Ok(())
    }
    fn class(&self) -> usize {
        DELETE
    }
    fn next_event(&mut self, stopping: &dyn Fn() -> bool) -> bool {
        self.done < self.total && self.table.wait_for_inserts(self.done + 1, stopping)
    }
}

/// Exactly the `rows` oldest rows, even when the low-water mark is below the minimum.
pub fn delete_sql(table: &str, rows: u64, dialect: Dialect) -> String {
    dialect.delete_oldest(table, "transactionid", rows)
}

/// Point queries on PostgreSQL read the highest key every this many queries, as the
/// original does (MySQL's inserts return their first key; PostgreSQL's do not).
const HIGH_WATER_EVERY: u64 = 100;

/// Closed-loop queries until the table's inserter has finished.
pub struct Querier {
    table: Arc<TableState>,
    shape: QueryShape,
    sql: Vec<String>,
    stmts: Vec<Prepared>,
    /// Range queries: the upper end (exclusive) of each index's first column's domain.
    domains: [u32; 3],
    rows_per_query: u32,
    rng: Rng,
    /// Reused between queries.
    params: Vec<Value<'static>>,
    /// PostgreSQL's point queries: the queries since `SELECT max(transactionid)` last ran.
    high_water: Option<u64>,
}

/// The three range queries (docs/insert-benchmark.md#workers): covering scans of 10 entries
/// from a random key. MySQL's name their index; PostgreSQL has no hints, and its planner
/// picks the covering index for the ORDER BY.
pub fn range_sql(table: &str, limit: u32, dialect: Dialect) -> Vec<String> {
    let q = |idx: &str, cols: &str, cmp: &str, first: &str| {
        let hint = dialect.force_index(&index_name(table, idx));
        format!(
            "SELECT {cols} FROM {table}{hint} WHERE {first} {cmp} ? ORDER BY {cols} LIMIT {limit}"
        )
    };
    let [(m, mc), (r, rc), (p, pc)] = INDEXES;
    vec![
        q(m, mc, ">=", "productid"),
        q(r, rc, ">", "cashregisterid"),
        q(p, pc, ">=", "price"),
    ]
}

pub fn point_sql(table: &str, keys: u32) -> String {
    let list = vec!["?"; keys as usize].join(",");
    format!("SELECT transactionid, productid, data FROM {table} WHERE transactionid IN ({list})")
}

impl Querier {
    pub fn new(
        conn: &mut Session,
        table: Arc<TableState>,
        o: &IbenchOptions,
        shape: QueryShape,
        rng: Rng,
    ) -> Result<Self> {
        let dialect = conn.dialect();
        let sql = match shape {
            QueryShape::Range => range_sql(&table.name, o.rows_per_query, dialect),
            QueryShape::Point => vec![point_sql(&table.name, o.rows_per_query)],
        };
        let stmts = sql
            .iter()
            .map(|s| prepare(conn, s))
            .collect::<Result<_>>()?;
        let high_water = (!dialect.reports_insert_id() && shape == QueryShape::Point).then_some(0);
        Ok(Querier {
            high_water,
            table,
            shape,
            sql,
            stmts,
            domains: [o.products, o.cashregisters, o.max_price],
            rows_per_query: o.rows_per_query,
            rng,
            params: Vec::with_capacity(o.rows_per_query as usize),
        })
    }
}

fn max_sql(table: &str) -> String {
    format!("SELECT max(transactionid) FROM {table}")
}

impl Querier {
    /// PostgreSQL: the highest key, at the first query and every [`HIGH_WATER_EVERY`].
    fn read_high_water(&mut self, conn: &mut Session) -> Result<(), EventError> {
        let Some(since) = &mut self.high_water else {
            return Ok(());
        };
        if *since % HIGH_WATER_EVERY == 0 {
            let sql = max_sql(&self.table.name);
            let max = conn.text_rows(&sql).map_err(|e| classify_error(e, &sql))?;
            if let Some(Some(v)) = max.first().and_then(|r| r.first()) {
                let id = v.parse::<i64>().map_err(|e| {
                    EventError::Fatal(anyhow::anyhow!("`{sql}` returned {v:?}: {e}"))
                })?;
                self.table.raise_high_water(id);
            }
        }
        *since += 1;
        Ok(())
    }
}

impl Worker for Querier {
    fn event(&mut self, conn: &mut Session, q: &mut QueryCounters) -> Result<(), EventError> {
        self.params.clear();
        let i = match self.shape {
            QueryShape::Range => {
                let i = self.rng.uniform(0, 2) as usize;
                let v = self.rng.uniform(0, self.domains[i] - 1);
                self.params.push(Value::Int(i64::from(v)));
                i
            }
            QueryShape::Point => {
                self.read_high_water(conn)?;
                let (lo, hi) = (self.table.low_water(), self.table.high_water().max(1));
                let span = (hi - lo + 1).max(1) as f64;
                for _ in 0..self.rows_per_query {
                    let id = lo + (self.rng.uniform_f64() * span) as i64;
                    self.params.push(Value::Int(id));
                }
                0
            }
        };
        let rows = conn
            .execute(&mut self.stmts[i], &self.params)
            .map_err(|e| classify_error(e, &self.sql[i]))?
            .rows;
        self.table.queries.fetch_add(1, Ordering::Relaxed);
        self.table.rows_fetched.fetch_add(rows, Ordering::Relaxed);
        if self.shape == QueryShape::Range {
            self.table.range_queries[i].fetch_add(1, Ordering::Relaxed);
        }
        q.reads += 1;
        Ok(())
    }
    fn reconnected(&mut self, conn: &mut Session) -> Result<()> {
        self.stmts = self
            .sql
            .iter()
            .map(|s| prepare(conn, s))
            .collect::<Result<_>>()?;
        Ok(())
    }
    fn class(&self) -> usize {
        QUERY
    }
    fn next_event(&mut self, _stopping: &dyn Fn() -> bool) -> bool {
        !self.table.inserts_finished()
    }
}

/// l.x: one 100-row INSERT, then the three indexes (one ALTER TABLE on MySQL, three CREATE
/// INDEX on PostgreSQL).
pub struct Indexer {
    insert: Inserter,
    indexed: bool,
}

impl Indexer {
    pub fn new(insert: Inserter) -> Self {
        Indexer {
            insert,
            indexed: false,
        }
    }
}

impl Worker for Indexer {
    fn event(&mut self, conn: &mut Session, q: &mut QueryCounters) -> Result<(), EventError> {
        if self.insert.done < self.insert.total {
            return self.insert.insert(conn, q);
        }
        for sql in add_indexes(&self.insert.table.name, conn.dialect()) {
            conn.query(&sql).map_err(|e| classify_error(e, &sql))?;
            q.other += 1;
        }
        self.indexed = true;
        Ok(())
    }
    fn reconnected(&mut self, conn: &mut Session) -> Result<()> {
        self.insert.reconnected(conn)
    }
    fn class(&self) -> usize {
        if self.insert.done < self.insert.total {
            INSERT
        } else {
            INDEX
        }
    }
    fn next_event(&mut self, _stopping: &dyn Fn() -> bool) -> bool {
        !self.indexed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_queries_use_their_covering_index() {
        let q = range_sql("pi1", 10, Dialect::mysql());
        assert_eq!(
            q[0],
            "SELECT productid, customerid, price FROM pi1 FORCE INDEX (pi1_marketsegment) \
             WHERE productid >= ? ORDER BY productid, customerid, price LIMIT 10"
        );
        assert!(
            q[1].contains("WHERE cashregisterid > ? ORDER BY cashregisterid, customerid, price")
        );
        assert!(q[2].contains("FORCE INDEX (pi1_pdc) WHERE price >= ?"));
        assert_eq!(point_sql("pi3", 10).matches('?').count(), 10);
        let pg = range_sql("pi1", 10, Dialect::postgres());
        assert_eq!(
            pg[1],
            "SELECT cashregisterid, customerid, price FROM pi1 \
             WHERE cashregisterid > ? ORDER BY cashregisterid, customerid, price LIMIT 10"
        );
    }

    #[test]
    fn postgres_deletes_the_oldest_keys_through_a_subquery() {
        assert_eq!(
            delete_sql("pi2", 50, Dialect::postgres()),
            "DELETE FROM pi2 WHERE transactionid IN (SELECT transactionid FROM pi2 \
             WHERE transactionid >= ? ORDER BY transactionid ASC LIMIT 50)"
        );
        assert_eq!(
            delete_sql("pi2", 5, Dialect::mysql()),
            "DELETE FROM pi2 WHERE transactionid >= ? ORDER BY transactionid ASC LIMIT 5"
        );
    }
}
