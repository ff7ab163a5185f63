use crate::engines::{self, sandboxes as by_name};
use crate::results::Family;
use crate::server::{Home, SandboxSpec, ServerOption};
use anyhow::Result;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Subcommand, Debug)]
pub enum SandboxCmd {
    /// Create (or reuse) a sandbox and start its server; returns once it accepts connections
    Start(StartArgs),
    /// Stop a sandbox's server by its own pid (SIGTERM, SIGKILL after 30 s)
    Stop {
        /// Sandbox names
        #[arg(required = true)]
        names: Vec<String>,
    },
    /// List sandboxes and whether their servers run
    List,
    /// Stop a sandbox cleanly and keep a copy of its datadir for later sandboxes (--from-snapshot)
    Snapshot {
        /// The sandbox to snapshot
        name: String,
        /// Name of the snapshot
        snapshot: String,
    },
    /// Remove a stopped sandbox's directory
    Remove {
        #[arg(required = true)]
        names: Vec<String>,
    },
}

#[derive(Args, Debug)]
pub struct StartArgs {
    /// Sandbox name (its directory under <home>/sandboxes)
    #[arg(long, default_value = "default")]
    name: String,
    /// The server engine: mysql (MariaDB or MySQL; the system's mariadbd unless --basedir
    /// names another tree) or postgres (the newest of the system's /usr/lib/postgresql/*
    /// unless --basedir); --basedir must hold one of it
    #[arg(long, default_value = "mysql",
          value_parser = PossibleValuesParser::new(engines::FAMILY_NAMES).map(|s| engines::family_named(&s)))]
    engine: Family,
    /// A server binary tree (bin/mariadbd, bin/mysqld or bin/postgres); default: the
    /// system's server of --engine
    #[arg(long)]
    basedir: Option<PathBuf>,
    /// Server option KEY=VALUE or KEY (repeatable); overrides the small-machine defaults
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Start from a copy of this snapshot's datadir
    #[arg(long)]
    from_snapshot: Option<String>,
    /// Discard the sandbox's datadir from an earlier start and begin from a fresh one
    #[arg(long)]
    fresh: bool,
    /// Seconds to wait for the server to accept connections
    #[arg(long, default_value_t = 60)]
    ready_timeout: u64,
}

pub fn command(cmd: SandboxCmd, home: &Home) -> Result<()> {
    match cmd {
        SandboxCmd::Start(a) => start(a, home),
        SandboxCmd::Stop { names } => {
            for n in names {
                if by_name::stop_by_name(home, &n)? {
                    println!("stopped sandbox '{n}'");
                } else {
                    println!("sandbox '{n}' was not running");
                }
            }
            Ok(())
        }
        SandboxCmd::List => {
            let all = by_name::list(home);
            if all.is_empty() {
                println!("no sandboxes under {}", home.root().display());
            }
            for s in all {
                let status = match s.process.filter(|p| p.is_running()) {
                    Some(p) => format!("running  pid {:<7} port {:<5}", p.pid, s.port),
                    None => "stopped".to_string(),
                };
                println!(
                    "{:<16} {:<40} {}  socket {}",
                    s.name,
                    status,
                    engines::label(&s.binaries),
                    s.socket.display()
                );
            }
            Ok(())
        }
        SandboxCmd::Snapshot { name, snapshot } => {
            let dest = by_name::snapshot(home, &name, &snapshot)?;
            println!(
                "snapshot '{snapshot}' of sandbox '{name}' at {}",
                dest.display()
            );
            Ok(())
        }
        SandboxCmd::Remove { names } => {
            for n in names {
                by_name::remove(home, &n)?;
                println!("removed sandbox '{n}'");
            }
            Ok(())
        }
    }
}

fn start(a: StartArgs, home: &Home) -> Result<()> {
    let mut spec = SandboxSpec::new(&a.name, home.clone());
    spec.basedir = a.basedir;
    spec.family = Some(a.engine);
    spec.options = a
        .options
        .iter()
        .map(|o| ServerOption::parse(o))
        .collect::<Result<_>>()?;
    spec.fresh = a.fresh;
    spec.ready_timeout = Duration::from_secs(a.ready_timeout);
    spec.detached = true;
    if let Some(snap) = a.from_snapshot {
        spec.datadir_from = Some(by_name::snapshot_datadir(home, &snap)?);
    }
    let st = engines::start(spec)?.detach();
    println!(
        "sandbox '{}' running: {} (pid {})",
        st.name,
        by_name::version_shown(&st),
        st.process.map(|p| p.pid).unwrap_or(0)
    );
    for line in by_name::describe(&st) {
        println!("{line}");
    }
    Ok(())
}
