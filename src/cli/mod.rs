//! Command-line parsing and dispatch only: one file per command, each handing its arguments
//! to a pipeline stage (`command` in each file).

mod bench;
mod bench_replay;
mod bench_run_args;
mod bench_script;
mod build;
mod check;
mod compare;
mod connection_args;
mod fetch;
mod history;
mod insert_benchmark;
mod merge;
mod parse_errors;
mod report;
mod run;
mod sandbox;
mod secret_args;
mod studies;

use crate::error;
use clap::{Parser, Subcommand};
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "psbench",
    version,
    about = "What does this database server setting, build or version cost on this workload?",
    propagate_version = true
)]
pub struct Cli {
    /// Where psbench keeps sandboxes, datadirs and snapshots [default: $PSBENCH_HOME, else $XDG_DATA_HOME/psbench, else /var/lib/psbench as root and ~/.local/share/psbench for others]
    #[arg(long, global = true, env = "PSBENCH_HOME", hide_env_values = true)]
    pub home: Option<std::path::PathBuf>,

    /// The results history finished studies are added to [default: $PSBENCH_HISTORY or HOME/history.sqlite]
    #[arg(long, global = true, env = "PSBENCH_HISTORY", hide_env_values = true)]
    pub history: Option<std::path::PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Private server sandboxes (MariaDB, MySQL, PostgreSQL): start, stop, list, snapshot
    #[command(subcommand)]
    Sandbox(sandbox::SandboxCmd),
    /// sysbench-compatible OLTP workloads (WORKLOAD prepare|run|cleanup), or insert-benchmark
    Bench(Box<bench::BenchArgs>),
    /// Run a study (a TOML file or a built-in name; default pfs-overhead) and print its tables
    Run(run::RunArgs),
    /// List the built-in studies and the performance_schema scenarios
    Studies(studies::StudiesArgs),
    /// Fetch a server release into the cache and print its basedir (e.g. mariadb 11.4.5)
    Fetch(fetch::FetchArgs),
    /// Build a server from source with a named flag set and print its tree (e.g. postgres
    /// debian:postgresql-15 --flags os); --list, --remove, --flag-sets
    Build(build::BuildArgs),
    /// Render the report of a results directory again (print Markdown, rewrite its report files)
    Report(report::ReportArgs),
    /// Compare two results documents (say before and after an upgrade): B's variants against A's
    Compare(compare::CompareArgs),
    /// Join the shards of one study (`run --shard`, on several hosts) into one results document
    Merge(merge::MergeArgs),
    /// The results history: series, points and change points; import, check (for CI), accept
    History(history::HistoryArgs),
    /// A study's cost-mode counts, each variant against its base: exit 1 when a step's
    /// instructions rose beyond the threshold (a pull request's gate: base and head in one study)
    Check(check::CheckArgs),
}

impl Cli {
    fn home(&self) -> crate::server::Home {
        match &self.home {
            Some(h) => crate::server::Home::new(h),
            None => crate::server::Home::from_env(),
        }
    }
}

/// Parse, run, and turn the outcome into an exit code (0 ok, 1 failed, 2 bad usage or input).
pub fn main() -> i32 {
    secret_args::scrub_password_from_process_title();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match parse_errors::outcome(e) {
            parse_errors::Outcome::ClapsOwn(e) => e.exit(),
            parse_errors::Outcome::OneLine(line) => {
                eprintln!("psbench: error: {line}");
                return error::EXIT_USAGE;
            }
        },
    };
    crate::server::registry::install_signal_handler();
    // Only these start servers and clients that a scheduler's cancel can kill before psbench.
    let starts_processes = matches!(
        cli.command,
        Command::Sandbox(_)
            | Command::Bench(_)
            | Command::Run(_)
            | Command::Fetch(_)
            | Command::Build(_)
    );
    let home = cli.home();
    let history = crate::history::path(cli.history.as_deref(), home.root());
    let result = match cli.command {
        Command::Sandbox(cmd) => sandbox::command(cmd, &home),
        Command::Bench(args) => bench::command(*args),
        Command::Run(args) => run::command(args, &home, &history),
        Command::Studies(args) => studies::command(args),
        Command::Fetch(args) => fetch::command(args),
        Command::Build(args) => build::command(args),
        Command::Report(args) => report::command(args),
        Command::Compare(args) => compare::command(args),
        Command::Merge(args) => merge::command(args, &history),
        Command::History(args) => history::command(args, &history),
        Command::Check(args) => check::command(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            // A job cancelled while a child ran: the signal's own exit, with its resume hint,
            // is the answer, not the child's failure. Other commands fail at once (history
            // check's exit 1 on a regression must not wait for a signal that never comes).
            // Whatever the error's kind, one raised once the signal came is the stop's.
            let code = error::exit_code(&e);
            let stopped = starts_processes
                && (crate::server::registry::stopping()
                    || (code == error::EXIT_FAILED
                        && crate::server::registry::failure_was_a_stop(Duration::from_secs(1))));
            if stopped {
                crate::server::registry::wait_for_the_stop();
            }
            for line in error::lines(&e) {
                eprintln!("psbench: error: {line}");
            }
            code
        }
    }
}
