//! pgbench's tables and data, as `pgbench -i -s SCALE -I dtGvp` makes them on PostgreSQL 15:
//! drop, create (fillfactor 100), generate on the server (branches and tellers with a NULL
//! filler, accounts with an empty one), vacuum analyze, primary keys. pgbench's default
//! generates accounts on the client with COPY; the rows are the same.

use crate::connection::postgres::PgSession;
use crate::connection::{Endpoint, Session};
use anyhow::{anyhow, Context, Result};

pub const BRANCHES: u32 = 1;
pub const TELLERS: u32 = 10;
pub const ACCOUNTS: u32 = 100_000;

/// pgbench's table definitions (int keys below scale 20,000, as pgbench chooses).
const TABLES: &[(&str, &str, bool)] = &[
    (
        "pgbench_history",
        "tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
        false,
    ),
    (
        "pgbench_tellers",
        "tid int not null,bid int,tbalance int,filler char(84)",
        true,
    ),
    (
        "pgbench_accounts",
        "aid    int not null,bid int,abalance int,filler char(84)",
        true,
    ),
    (
        "pgbench_branches",
        "bid int not null,bbalance int,filler char(88)",
        true,
    ),
];

/// The database the tables live in: the endpoint's.
fn session(endpoint: &Endpoint) -> Result<PgSession> {
    endpoint.create_database_if_missing(endpoint.database.as_deref().unwrap_or("postgres"))?;
    endpoint.pg().connect()
}

pub fn prepare(endpoint: &Endpoint, scale: u32) -> Result<()> {
    if scale >= 20_000 {
        return Err(crate::error::usage(
            "psbench makes pgbench's int-keyed tables: --scale must be below 20000",
        ));
    }
    let mut c = session(endpoint)?;
    let run = |c: &mut PgSession, sql: &str| {
        c.run(sql).with_context(|| {
            format!(
                "running `{}`",
                sql.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        })
    };
    println!("dropping old tables...");
    run(
        &mut c,
        "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
    )?;
    println!("creating tables...");
    for (name, cols, fillfactor) in TABLES {
        let with = if *fillfactor {
            " with (fillfactor=100)"
        } else {
            ""
        };
        run(&mut c, &format!("create table {name}({cols}){with}"))?;
    }
    println!("generating data (server-side)...");
    run(&mut c, "begin")?;
    run(
        &mut c,
        "truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
    )?;
    run(
        &mut c,
        &format!(
            "insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, {}) as bid",
            BRANCHES * scale
        ),
    )?;
    run(
        &mut c,
        &format!(
            "insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / {TELLERS} + 1, 0 \
             from generate_series(1, {}) as tid",
            TELLERS * scale
        ),
    )?;
    run(
        &mut c,
        &format!(
            "insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / {ACCOUNTS} + 1, 0, '' \
             from generate_series(1, {}) as aid",
            u64::from(ACCOUNTS) * u64::from(scale)
        ),
    )?;
    run(&mut c, "commit")?;
    println!("vacuuming...");
    for t in [
        "pgbench_branches",
        "pgbench_tellers",
        "pgbench_accounts",
        "pgbench_history",
    ] {
        run(&mut c, &format!("vacuum analyze {t}"))?;
    }
    println!("creating primary keys...");
    for (t, k) in [
        ("pgbench_branches", "bid"),
        ("pgbench_tellers", "tid"),
        ("pgbench_accounts", "aid"),
    ] {
        run(&mut c, &format!("alter table {t} add primary key ({k})"))?;
    }
    println!("done.");
    Ok(())
}

pub fn cleanup(endpoint: &Endpoint) -> Result<()> {
    let mut c = endpoint.pg().connect()?;
    println!("dropping tables...");
    c.run(
        "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
    )
    .context("dropping pgbench's tables")?;
    Ok(())
}

/// The scale the tables were made at: the number of branches (pgbench's own query).
pub fn scale_of(conn: &mut Session) -> Result<u32> {
    if !conn.dialect().supports_pgbench() {
        return Err(anyhow!("pgbench's tables live on PostgreSQL"));
    }
    let rows = conn
        .text_rows("select count(*) from pgbench_branches")
        .map_err(|e| crate::error::usage(format!("{e} (run `prepare` first)")))?;
    let n: u32 = rows
        .first()
        .and_then(|r| r.first().cloned().flatten())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if n == 0 {
        return Err(crate::error::usage(
            "pgbench_branches is empty: run `prepare` first",
        ));
    }
    Ok(n)
}
