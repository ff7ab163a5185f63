//! The connection options every `bench` command shares, with sysbench's names.

use crate::connection::{password_from_file, Endpoint};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ConnectionArgs {
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

impl ConnectionArgs {
    pub fn endpoint(&self) -> Result<Endpoint> {
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
