//! The server cost mode measures, as the caller describes it.

use crate::connection::Endpoint;
use crate::server::account::Account;
use std::path::PathBuf;

/// A server already running under a [`super::Counter`]'s wrapper.
#[derive(Clone, Debug)]
pub struct Target {
    /// The process valgrind runs (the server, or the postmaster that forks the backends).
    pub pid: i32,
    /// An administrator's endpoint, on the database the measured connections use.
    pub endpoint: Endpoint,
    /// The account the server runs as, when not psbench's own: valgrind's control pipes answer
    /// their own user only.
    pub account: Option<Account>,
    /// Where the wrapper writes the dumps (a directory the server's account may write).
    pub dumps: PathBuf,
}

impl Target {
    /// The same server, measured on `database`.
    pub fn in_database(&self, database: &str) -> Target {
        Target {
            endpoint: self.endpoint.clone().with_database(Some(database)),
            ..self.clone()
        }
    }
}
