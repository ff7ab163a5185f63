//! Tables pi1..piN and their three secondary indexes (docs/insert-benchmark.md#tables-and-rows).

use super::options::IbenchOptions;
use crate::results::insert_benchmark::TableFacts;
use anyhow::{Context, Result};
use mysql::prelude::Queryable;

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

fn create_table(table: &str, engine: &str) -> String {
    format!(
        "CREATE TABLE {table} (\
         transactionid BIGINT NOT NULL AUTO_INCREMENT, \
         dateandtime DATETIME, \
         cashregisterid INT NOT NULL, \
         customerid INT NOT NULL, \
         productid INT NOT NULL, \
         price INT NOT NULL, \
         data VARCHAR(4000), \
         PRIMARY KEY (transactionid)) ENGINE={engine}"
    )
}

/// All three indexes in one ALTER TABLE: one scan of the table for all of them (docs/insert-benchmark.md#tables-and-rows).
pub fn add_indexes(table: &str) -> String {
    let adds: Vec<String> = INDEXES
        .iter()
        .map(|(suffix, cols)| format!("ADD INDEX {} ({cols})", index_name(table, suffix)))
        .collect();
    format!("ALTER TABLE {table} {}", adds.join(", "))
}

/// Drop and create the database and the client tables (l.i0 starts from nothing).
pub fn recreate(conn: &mut mysql::Conn, o: &IbenchOptions) -> Result<()> {
    conn.query_drop(format!("DROP DATABASE IF EXISTS {DATABASE}"))
        .with_context(|| format!("dropping database {DATABASE}"))?;
    conn.query_drop(format!("CREATE DATABASE {DATABASE}"))
        .with_context(|| format!("creating database {DATABASE}"))?;
    for c in 0..o.clients as usize {
        let t = table_name(c);
        conn.query_drop(format!("USE {DATABASE}"))?;
        conn.query_drop(create_table(&t, &o.engine))
            .with_context(|| format!("creating table {DATABASE}.{t} with ENGINE={}", o.engine))?;
    }
    Ok(())
}

pub fn drop_database(conn: &mut mysql::Conn) -> Result<()> {
    conn.query_drop(format!("DROP DATABASE IF EXISTS {DATABASE}"))
        .with_context(|| format!("dropping database {DATABASE}"))
}

pub fn facts(conn: &mut mysql::Conn, table: &str) -> Result<TableFacts> {
    let (rows, min_id, max_id): (u64, Option<i64>, Option<i64>) = conn
        .query_first(format!(
            "SELECT COUNT(*), MIN(transactionid), MAX(transactionid) FROM {DATABASE}.{table}"
        ))
        .with_context(|| format!("counting the rows of {DATABASE}.{table}"))?
        .unwrap_or((0, None, None));
    let indexes: Vec<String> = conn
        .exec(
            "SELECT DISTINCT index_name FROM information_schema.statistics \
             WHERE table_schema = ? AND table_name = ? ORDER BY index_name",
            (DATABASE, table),
        )
        .with_context(|| format!("listing the indexes of {DATABASE}.{table}"))?;
    Ok(TableFacts {
        table: table.to_string(),
        rows,
        min_id,
        max_id,
        indexes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_alter_adds_the_three_indexes_in_order() {
        assert_eq!(
            add_indexes("pi2"),
            "ALTER TABLE pi2 ADD INDEX pi2_marketsegment (productid, customerid, price), \
             ADD INDEX pi2_registersegment (cashregisterid, customerid, price), \
             ADD INDEX pi2_pdc (price, dateandtime, customerid)"
        );
        assert!(
            create_table("pi1", "InnoDB").contains("PRIMARY KEY (transactionid)) ENGINE=InnoDB")
        );
    }
}
