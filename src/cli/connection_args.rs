//! The connection options every `bench` command shares, with sysbench's names.

use crate::connection::{password_from_file, Endpoint};
use anyhow::Result;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// sysbench's `--db-driver`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbDriver {
    /// MySQL and MariaDB (--mysql-* options)
    Mysql,
    /// PostgreSQL (--pgsql-* options)
    Pgsql,
}

#[derive(Args, Debug)]
pub struct ConnectionArgs {
    /// The protocol: mysql (MySQL, MariaDB) or pgsql (PostgreSQL).
    #[arg(
        long,
        alias = "db_driver",
        value_enum,
        default_value = "mysql",
        help_heading = "Connection"
    )]
    pub db_driver: DbDriver,
    #[command(flatten)]
    pub pgsql: PgsqlArgs,
    /// Server host (TCP).
    #[arg(
        long,
        alias = "mysql_host",
        default_value = "127.0.0.1",
        help_heading = "Connection"
    )]
    pub mysql_host: String,
    /// Server port (TCP).
    #[arg(
        long,
        alias = "mysql_port",
        default_value_t = 3306,
        help_heading = "Connection"
    )]
    pub mysql_port: u16,
    /// Unix socket; when given, host and port are not used.
    #[arg(long, alias = "mysql_socket", help_heading = "Connection")]
    pub mysql_socket: Option<PathBuf>,
    /// User. `sbtest` is sysbench's default; a psbench sandbox has `root` with no password.
    #[arg(
        long,
        alias = "mysql_user",
        default_value = "sbtest",
        help_heading = "Connection"
    )]
    pub mysql_user: String,
    /// Password; prefer PSBENCH_MYSQL_PASSWORD or --mysql-password-file, which keep it out
    /// of the process list. Never printed nor written to results.
    #[arg(
        long,
        alias = "mysql_password",
        env = "PSBENCH_MYSQL_PASSWORD",
        hide_env_values = true,
        conflicts_with = "mysql_password_file",
        help_heading = "Connection"
    )]
    pub mysql_password: Option<String>,
    /// File with the password (`password=...` as in my.cnf, or the bare password).
    #[arg(long, alias = "mysql_password_file", help_heading = "Connection")]
    pub mysql_password_file: Option<PathBuf>,
    /// Database; `prepare` creates it when missing.
    #[arg(
        long,
        alias = "mysql_db",
        default_value = "sbtest",
        help_heading = "Connection"
    )]
    pub mysql_db: String,
}

/// PostgreSQL's connection options, with sysbench's names and defaults.
#[derive(Args, Debug)]
pub struct PgsqlArgs {
    /// PostgreSQL host (TCP).
    #[arg(
        long,
        alias = "pgsql_host",
        default_value = "localhost",
        help_heading = "PostgreSQL"
    )]
    pub pgsql_host: String,
    /// PostgreSQL port (TCP).
    #[arg(
        long,
        alias = "pgsql_port",
        default_value_t = 5432,
        help_heading = "PostgreSQL"
    )]
    pub pgsql_port: u16,
    /// The directory holding the server's socket (`.s.PGSQL.<port>`); host is then not used.
    #[arg(long, alias = "pgsql_socket_dir", help_heading = "PostgreSQL")]
    pub pgsql_socket_dir: Option<PathBuf>,
    /// PostgreSQL user.
    #[arg(
        long,
        alias = "pgsql_user",
        default_value = "sbtest",
        help_heading = "PostgreSQL"
    )]
    pub pgsql_user: String,
    /// Password; prefer PSBENCH_PGSQL_PASSWORD or --pgsql-password-file, which keep it out of
    /// the process list. Never printed nor written to results.
    #[arg(
        long,
        alias = "pgsql_password",
        env = "PSBENCH_PGSQL_PASSWORD",
        hide_env_values = true,
        conflicts_with = "pgsql_password_file",
        help_heading = "PostgreSQL"
    )]
    pub pgsql_password: Option<String>,
    /// File with the password (the bare password, `password=...`, or one pgpass line, as a
    /// psbench sandbox's `pgpass`).
    #[arg(long, alias = "pgsql_password_file", help_heading = "PostgreSQL")]
    pub pgsql_password_file: Option<PathBuf>,
    /// Database; `prepare` creates it when missing.
    #[arg(
        long,
        alias = "pgsql_db",
        default_value = "sbtest",
        help_heading = "PostgreSQL"
    )]
    pub pgsql_db: String,
}

impl ConnectionArgs {
    pub fn endpoint(&self) -> Result<Endpoint> {
        if self.db_driver == DbDriver::Pgsql {
            let p = &self.pgsql;
            let mut ep = Endpoint::tcp(&p.pgsql_host, p.pgsql_port, &p.pgsql_user)
                .postgres()
                .with_socket(p.pgsql_socket_dir.clone())
                .with_database(Some(&p.pgsql_db));
            ep.password = match (&p.pgsql_password, &p.pgsql_password_file) {
                (Some(pw), _) => Some(pw.clone()),
                (None, Some(f)) => Some(password_from_file(f)?),
                (None, None) => None,
            };
            return Ok(ep);
        }
        let mut ep = Endpoint::tcp(&self.mysql_host, self.mysql_port, &self.mysql_user)
            .with_socket(self.mysql_socket.clone())
            .with_database(Some(&self.mysql_db));
        ep.password = match (&self.mysql_password, &self.mysql_password_file) {
            (Some(p), _) => Some(p.clone()),
            (None, Some(f)) => Some(password_from_file(f)?),
            (None, None) => None,
        };
        Ok(ep)
    }
}
