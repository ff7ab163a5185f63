//! `psbench bench WORKLOAD prepare|run|cleanup [options]`: sysbench's command line, in
//! sysbench's order and with its option names. Builds the option structs and calls the
//! driver; nothing else.

pub use super::bench_run_args::RunArgs;
use super::connection_args::ConnectionArgs;
use super::insert_benchmark::InsertBenchmarkArgs;
use crate::console::{self, RunContext};
use crate::results::CpuList;
use crate::workloads::pgbench::PgbenchOptions;
use crate::workloads::OltpOptions;
use anyhow::Result;
use clap::{Args, ValueEnum};

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub insert_benchmark: Option<BenchSub>,

    #[arg(value_name = "WORKLOAD", help = workload_help(), required = true)]
    pub workload: Option<String>,

    /// prepare: create and load the tables; run: measure; cleanup: drop the tables.
    #[arg(value_enum, value_name = "COMMAND", required = true)]
    pub command: Option<BenchCommand>,

    #[command(flatten)]
    pub connection: ConnectionArgs,

    #[command(flatten)]
    pub run: RunArgs,

    #[command(flatten)]
    pub oltp: OltpOptions,

    #[command(flatten)]
    pub pgbench: PgbenchOptions,
}

fn workload_help() -> String {
    crate::workloads::bench_workloads_help()
}

#[derive(clap::Subcommand, Debug)]
pub enum BenchSub {
    /// The Insert Benchmark's steps (l.i0, l.x, l.i1, l.i2, qr100 … qp1000) in order
    #[command(name = "insert-benchmark")]
    InsertBenchmark(Box<InsertBenchmarkArgs>),
    /// Scripts in pgbench's language (FILE[@WEIGHT]…) against a running server
    Script(Box<super::bench_script::ScriptArgs>),
    /// A captured query log replayed, a connection per captured session
    Replay(Box<super::bench_replay::ReplayArgs>),
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchCommand {
    Prepare,
    Run,
    Cleanup,
}

/// `--client-cpus`: this thread, which starts the client threads, placed until dropped.
fn client_placement(cpus: &Option<CpuList>) -> Result<Option<crate::driver::Placed>> {
    cpus.as_ref()
        .map(|l| crate::driver::place_this_thread(l, "--client-cpus"))
        .transpose()
}

pub fn command(args: BenchArgs) -> Result<()> {
    match args.insert_benchmark {
        Some(BenchSub::InsertBenchmark(ib)) => return super::insert_benchmark::command(*ib),
        Some(BenchSub::Script(s)) => return super::bench_script::command(*s),
        Some(BenchSub::Replay(r)) => return super::bench_replay::command(*r),
        None => {}
    }
    let (Some(name), Some(command)) = (&args.workload, args.command) else {
        return Err(crate::error::usage("bench needs a WORKLOAD and a COMMAND"));
    };
    let endpoint = args.connection.endpoint()?;
    let (workload, workload_options) =
        crate::workloads::bench_workload(name, &args.oltp, &args.pgbench, &endpoint)?;
    // Not locked: workloads print progress from their own threads.
    let mut out = std::io::stdout();
    match command {
        BenchCommand::Prepare => console::sysbench::prepare(
            workload.as_ref(),
            &endpoint,
            args.run.threads,
            args.run.rand_seed,
            &mut out,
        ),
        BenchCommand::Cleanup => console::sysbench::cleanup(workload.as_ref(), &endpoint, &mut out),
        BenchCommand::Run => {
            let command_line: Vec<String> = std::env::args().collect();
            let _placed = client_placement(&args.run.client_cpus)?;
            let ctx = RunContext {
                endpoint: &endpoint,
                workload_options: &workload_options,
                command_line: &command_line,
            };
            console::sysbench::run(
                workload.as_ref(),
                &endpoint,
                &args.run.options(),
                &ctx,
                &mut out,
            )
            .map(|_| ())
        }
    }
}
