//! `prepare` and `cleanup` (docs/sysbench-compat.md#schema-and-data): sbtest tables loaded with multi-row INSERTs of at
//! most 512 KiB, in parallel over several connections, the k index built after the load.

use super::options::OltpOptions;
use super::sql;
use crate::connection::{AdminConn, Endpoint};
use crate::error::usage;
use crate::workloads::random::{fill_template, RangeSampler, Rng, C_TEMPLATE, PAD_TEMPLATE};
use anyhow::{anyhow, Context, Result};
use std::fmt::Write;

/// sysbench's bulk-insert buffer: a statement is sent before it would exceed this.
pub const BULK_INSERT_LIMIT: usize = 512 * 1024;

/// The database the tables live in: the endpoint's, or sysbench's `sbtest`.
pub fn database_name(endpoint: &Endpoint) -> Result<String> {
    let db = endpoint
        .database
        .clone()
        .unwrap_or_else(|| "sbtest".to_string());
    if db.is_empty() || db.contains('`') || db.contains('\0') {
        return Err(usage(format!("'{db}' cannot be used as a database name")));
    }
    Ok(db)
}

/// Create the database when missing, then the `opts.tables` tables with `rows` rows each;
/// worker t of `threads` loads tables t+1, t+1+threads, … on its own connection. The data
/// of a table depends only on `seed` and its number, not on `threads`.
pub fn prepare(
    endpoint: &Endpoint,
    opts: &OltpOptions,
    rows: u32,
    threads: usize,
    seed: u64,
) -> Result<()> {
    let db = database_name(endpoint)?;
    endpoint
        .create_database_if_missing(&db)
        .with_context(|| format!("creating database `{db}` at {}", endpoint.describe()))?;
    let endpoint = endpoint.clone().with_database(Some(&db));
    let threads = threads.clamp(1, opts.tables as usize);
    let results: Vec<Result<()>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let endpoint = &endpoint;
                s.spawn(move || -> Result<()> {
                    let mut conn = AdminConn::open(endpoint)?;
                    let mut table = t as u32 + 1;
                    while table <= opts.tables {
                        load_table(&mut conn, table, opts, rows, seed)?;
                        table += threads as u32;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow!("a prepare thread panicked")))
            })
            .collect()
    });
    results.into_iter().collect::<Result<Vec<()>>>()?;
    Ok(())
}

fn load_table(
    conn: &mut AdminConn,
    table: u32,
    opts: &OltpOptions,
    rows: u32,
    seed: u64,
) -> Result<()> {
    println!("Creating table 'sbtest{table}'...");
    let ddl = sql::create_table(table, opts, conn.dialect());
    conn.run(&ddl).with_context(|| {
        format!("creating table sbtest{table} (does it exist already? run cleanup first)")
    })?;
    if rows > 0 {
        println!("Inserting {rows} records into 'sbtest{table}'");
        insert_rows(conn, table, opts, rows, seed)
            .with_context(|| format!("loading table sbtest{table}"))?;
    }
    if opts.create_secondary {
        println!("Creating a secondary index on 'sbtest{table}'...");
        conn.run(&sql::create_k_index(table))
            .with_context(|| format!("creating index k_{table}"))?;
    }
    Ok(())
}

/// Rows as sysbench makes them: c, then pad, then k = default(1, table_size); ids
/// 1..rows (assigned by the server when auto_inc is on). No explicit transaction.
fn insert_rows(
    conn: &mut AdminConn,
    table: u32,
    opts: &OltpOptions,
    rows: u32,
    seed: u64,
) -> Result<()> {
    let mut rng = Rng::for_stream(seed, u64::from(table));
    let k_sampler = RangeSampler::new(opts.distribution(), 1, opts.table_size);
    let prefix = sql::bulk_insert_prefix(table, opts.auto_inc);
    let mut stmt = String::with_capacity(BULK_INSERT_LIMIT);
    let mut tuple = String::with_capacity(256);
    let (mut c, mut pad) = (Vec::with_capacity(128), Vec::with_capacity(64));
    let mut in_stmt = 0usize;
    for id in 1..=rows {
        fill_template(&mut rng, C_TEMPLATE, &mut c);
        fill_template(&mut rng, PAD_TEMPLATE, &mut pad);
        let k = k_sampler.sample(&mut rng);
        let (c, pad) = (ascii(&c), ascii(&pad));
        tuple.clear();
        if opts.auto_inc {
            let _ = write!(tuple, "({k}, '{c}', '{pad}')");
        } else {
            let _ = write!(tuple, "({id}, {k}, '{c}', '{pad}')");
        }
        // Room for the separating comma and sysbench's terminating NUL.
        if in_stmt > 0 && stmt.len() + 1 + tuple.len() + 1 > BULK_INSERT_LIMIT {
            send(conn, &stmt, in_stmt)?;
            in_stmt = 0;
        }
        if in_stmt == 0 {
            stmt.clear();
            stmt.push_str(&prefix);
        } else {
            stmt.push(',');
        }
        stmt.push_str(&tuple);
        in_stmt += 1;
    }
    if in_stmt > 0 {
        send(conn, &stmt, in_stmt)?;
    }
    Ok(())
}

fn send(conn: &mut AdminConn, stmt: &str, rows: usize) -> Result<()> {
    conn.run(stmt)
        .with_context(|| format!("multi-row INSERT of {rows} rows ({} bytes)", stmt.len()))
}

fn ascii(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("templates produce ASCII")
}

/// `DROP TABLE IF EXISTS` for each table, in the endpoint's database.
pub fn cleanup(endpoint: &Endpoint, tables: u32) -> Result<()> {
    let db = database_name(endpoint)?;
    let mut conn = AdminConn::open(&endpoint.clone().with_database(Some(&db)))?;
    for table in 1..=tables {
        println!("Dropping table 'sbtest{table}'...");
        conn.run(&sql::drop_table(table))
            .with_context(|| format!("dropping table sbtest{table}"))?;
    }
    Ok(())
}
