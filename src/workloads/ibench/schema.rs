//! Tables pi1..piN and their three secondary indexes (docs/insert-benchmark.md#tables-and-rows),
//! in each engine's form as the original creates them.

use super::options::IbenchOptions;
use crate::connection::{AdminConn, Dialect, Endpoint, KeyWidth};
use crate::results::insert_benchmark::TableFacts;
use anyhow::{Context, Result};

/// The original scripts' database.
pub const DATABASE: &str = "ib";

/// The three secondary indexes, in creation order: (suffix, columns).
pub const INDEXES: [(&str, &str); 3] = [
    ("marketsegment", "productid, customerid, price"),
    ("registersegment", "cashregisterid, customerid, price"),
    ("pdc", "price, dateandtime, customerid"),
];

pub fn table_name(client: usize) -> String {
    format!("pi{}", client + 1)
}

pub fn index_name(table: &str, suffix: &str) -> String {
    format!("{table}_{suffix}")
}

/// The original's key column.
const KEY: &str = "transactionid";

/// The statements that create one table: with the storage engine where tables take one;
/// on PostgreSQL with a bigserial key whose sequence hands each session 1000 values at a time.
pub fn create_table(table: &str, engine: &str, dialect: Dialect) -> Vec<String> {
    let key = dialect.numbered_primary_key(KEY, KeyWidth::BigInt);
    let constraint = key.constraint.map(|c| format!(", {c}")).unwrap_or_default();
    let engine = if dialect.takes_storage_engine() {
        format!(" ENGINE={engine}")
    } else {
        String::new()
    };
    let mut sql = vec![format!(
        "CREATE TABLE {table} (\
         {}, \
         dateandtime {}, \
         cashregisterid INT NOT NULL, \
         customerid INT NOT NULL, \
         productid INT NOT NULL, \
         price INT NOT NULL, \
         data VARCHAR(4000){constraint}){engine}",
        key.column,
        dialect.datetime_type()
    )];
    sql.extend(dialect.cache_serial_values(table, KEY, 1000));
    sql
}

/// The statements that build the three indexes: on MySQL one ALTER TABLE, one scan of the
/// table for all of them; on PostgreSQL one CREATE INDEX per index, in order, as the
/// original does there (docs/insert-benchmark.md#tables-and-rows).
pub fn add_indexes(table: &str, dialect: Dialect) -> Vec<String> {
    let indexes: Vec<(String, &str)> = INDEXES
        .iter()
        .map(|(suffix, cols)| (index_name(table, suffix), *cols))
        .collect();
    dialect.add_indexes(table, &indexes)
}

/// The endpoint of the benchmark's database.
pub fn in_database(endpoint: &Endpoint) -> Endpoint {
    endpoint.clone().with_database(Some(DATABASE))
}

/// Drop and create the database and the client tables (l.i0 starts from nothing).
pub fn recreate(endpoint: &Endpoint, o: &IbenchOptions) -> Result<()> {
    let dialect = endpoint.dialect();
    if !dialect.takes_storage_engine() && !o.engine.eq_ignore_ascii_case("InnoDB") {
        return Err(crate::error::usage(format!(
            "--engine {}: a MySQL storage engine; PostgreSQL's tables have none",
            o.engine
        )));
    }
    drop_database(endpoint)?;
    let mut server = AdminConn::open(&endpoint.clone().with_database(None))?;
    server
        .run(&format!("CREATE DATABASE {DATABASE}"))
        .with_context(|| format!("creating database {DATABASE}"))?;
    let mut db = AdminConn::open(&in_database(endpoint))?;
    for c in 0..o.clients as usize {
        let t = table_name(c);
        for sql in create_table(&t, &o.engine, dialect) {
            db.run(&sql)
                .with_context(|| format!("creating table {DATABASE}.{t}"))?;
        }
    }
    Ok(())
}

/// Drop the database; on PostgreSQL from the `postgres` database, once the step's sessions
/// have gone (the server waits a few seconds for their backends to exit).
pub fn drop_database(endpoint: &Endpoint) -> Result<()> {
    AdminConn::open(&endpoint.clone().with_database(None))?
        .run(&format!("DROP DATABASE IF EXISTS {DATABASE}"))
        .with_context(|| format!("dropping database {DATABASE}"))
}

/// Rows, key range and indexes of `table`, on a connection to the benchmark's database.
pub fn facts(conn: &mut AdminConn, table: &str) -> Result<TableFacts> {
    let counted = conn
        .rows(&format!(
            "SELECT COUNT(*), MIN(transactionid), MAX(transactionid) FROM {table}"
        ))
        .with_context(|| format!("counting the rows of {DATABASE}.{table}"))?;
    let number = |i: usize| -> Result<Option<i64>> {
        counted
            .first()
            .and_then(|r| r.get(i).cloned().flatten())
            .map(|v| v.parse::<i64>().context("a count that is no number"))
            .transpose()
    };
    let listing = conn.dialect().list_indexes(DATABASE, table);
    let indexes = conn
        .rows(&listing)
        .with_context(|| format!("listing the indexes of {DATABASE}.{table}"))?
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
        .collect();
    Ok(TableFacts {
        table: table.to_string(),
        rows: number(0)?.unwrap_or(0) as u64,
        min_id: number(1)?,
        max_id: number(2)?,
        indexes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_alter_adds_the_three_indexes_in_order() {
        assert_eq!(
            add_indexes("pi2", Dialect::mysql()),
            [
                "ALTER TABLE pi2 ADD INDEX pi2_marketsegment (productid, customerid, price), \
             ADD INDEX pi2_registersegment (cashregisterid, customerid, price), \
             ADD INDEX pi2_pdc (price, dateandtime, customerid)"
            ]
        );
        assert_eq!(
            create_table("pi1", "InnoDB", Dialect::mysql()),
            [
                "CREATE TABLE pi1 (transactionid BIGINT NOT NULL AUTO_INCREMENT, \
              dateandtime DATETIME, cashregisterid INT NOT NULL, customerid INT NOT NULL, \
              productid INT NOT NULL, price INT NOT NULL, data VARCHAR(4000), \
              PRIMARY KEY (transactionid)) ENGINE=InnoDB"
            ]
        );
    }

    #[test]
    fn postgres_builds_each_index_on_its_own_and_caches_the_sequence() {
        let idx = add_indexes("pi1", Dialect::postgres());
        assert_eq!(idx.len(), 3);
        assert_eq!(
            idx[2],
            "CREATE INDEX pi1_pdc ON pi1 (price, dateandtime, customerid)"
        );
        assert_eq!(
            create_table("pi1", "InnoDB", Dialect::postgres()),
            [
                "CREATE TABLE pi1 (transactionid BIGSERIAL PRIMARY KEY, \
                 dateandtime TIMESTAMP WITHOUT TIME ZONE, cashregisterid INT NOT NULL, \
                 customerid INT NOT NULL, productid INT NOT NULL, price INT NOT NULL, \
                 data VARCHAR(4000))",
                "ALTER SEQUENCE pi1_transactionid_seq CACHE 1000"
            ]
        );
    }
}
