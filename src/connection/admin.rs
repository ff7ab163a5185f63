//! The probes' own connection to a server, over its protocol: the `mysql` crate's for MySQL
//! and MariaDB, psbench's PostgreSQL client for PostgreSQL.

use crate::connection::postgres::PgSession;
use crate::connection::{Endpoint, Engine};
use anyhow::Result;

pub enum AdminConn {
    MySql(mysql::Conn),
    Pg(PgSession),
}

impl AdminConn {
    pub fn open(endpoint: &Endpoint) -> Result<AdminConn> {
        Ok(match endpoint.engine {
            Engine::MySql => AdminConn::MySql(endpoint.connect()?),
            Engine::Postgres => AdminConn::Pg(endpoint.pg().connect()?),
        })
    }
}
