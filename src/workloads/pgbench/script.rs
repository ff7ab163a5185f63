//! One transaction of a pgbench built-in script, with pgbench's draws: aid, bid, tid
//! uniform over the scale's rows, delta uniform in [-5000, 5000].

use super::init::{ACCOUNTS, BRANCHES, TELLERS};
use crate::connection::Session;
use crate::workloads::random::Rng;
use crate::workloads::sysbench::statement::{Param, Statement};
use crate::workloads::{EventError, QueryCounters, Worker};
use anyhow::Result;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script {
    TpcbLike,
    SimpleUpdate,
    SelectOnly,
}

/// The statements as PostgreSQL 15's pgbench writes them, `:name` as `?`.
const BEGIN: &str = "BEGIN";
const END: &str = "END";
const UPDATE_ACCOUNT: &str = "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?";
const SELECT_ACCOUNT: &str = "SELECT abalance FROM pgbench_accounts WHERE aid = ?";
const UPDATE_TELLER: &str = "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?";
const UPDATE_BRANCH: &str = "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?";
const INSERT_HISTORY: &str = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) \
                              VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)";

pub struct PgbenchWorker {
    script: Script,
    scale: u32,
    rng: Rng,
    begin: Statement,
    end: Statement,
    update_account: Statement,
    select_account: Statement,
    update_teller: Statement,
    update_branch: Statement,
    insert_history: Statement,
    prepared: bool,
    sql: String,
}

impl PgbenchWorker {
    pub fn new(
        conn: &mut Session,
        script: Script,
        scale: u32,
        prepared: bool,
        rng: Rng,
    ) -> Result<PgbenchWorker> {
        let mut s = |text: &str| Statement::new(conn, text, prepared);
        Ok(PgbenchWorker {
            script,
            scale,
            rng,
            begin: s(BEGIN)?,
            end: s(END)?,
            update_account: s(UPDATE_ACCOUNT)?,
            select_account: s(SELECT_ACCOUNT)?,
            update_teller: s(UPDATE_TELLER)?,
            update_branch: s(UPDATE_BRANCH)?,
            insert_history: s(INSERT_HISTORY)?,
            prepared,
            sql: String::with_capacity(256),
        })
    }
}

impl Worker for PgbenchWorker {
    fn event(&mut self, conn: &mut Session, q: &mut QueryCounters) -> Result<(), EventError> {
        // pgbench's \set lines, in its order.
        let aid = i64::from(self.rng.uniform(1, ACCOUNTS * self.scale));
        if self.script == Script::SelectOnly {
            return self
                .select_account
                .run(conn, &[Param::Int(aid)], &mut self.sql, q);
        }
        let bid = i64::from(self.rng.uniform(1, BRANCHES * self.scale));
        let tid = i64::from(self.rng.uniform(1, TELLERS * self.scale));
        let delta = i64::from(self.rng.uniform(0, 10_000)) - 5_000;
        let sql = &mut self.sql;
        self.begin.run(conn, &[], sql, q)?;
        self.update_account
            .run(conn, &[Param::Int(delta), Param::Int(aid)], sql, q)?;
        self.select_account.run(conn, &[Param::Int(aid)], sql, q)?;
        if self.script == Script::TpcbLike {
            self.update_teller
                .run(conn, &[Param::Int(delta), Param::Int(tid)], sql, q)?;
            self.update_branch
                .run(conn, &[Param::Int(delta), Param::Int(bid)], sql, q)?;
        }
        let history = [
            Param::Int(tid),
            Param::Int(bid),
            Param::Int(aid),
            Param::Int(delta),
        ];
        self.insert_history.run(conn, &history, sql, q)?;
        self.end.run(conn, &[], sql, q)
    }

    /// Prepare again on the new connection; the draws go on where they were.
    fn reconnected(&mut self, conn: &mut Session) -> Result<()> {
        *self = PgbenchWorker::new(
            conn,
            self.script,
            self.scale,
            self.prepared,
            self.rng.clone(),
        )?;
        Ok(())
    }
}
