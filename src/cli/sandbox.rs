use crate::server::{by_name, Flavour, Home, Sandbox, SandboxSpec, SandboxState, ServerOption};
use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
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

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Engine {
    /// MariaDB or MySQL (the system's mariadbd unless --basedir names another tree)
    #[value(alias = "mariadb")]
    Mysql,
    /// PostgreSQL (the newest of the system's /usr/lib/postgresql/* unless --basedir)
    Postgres,
}

#[derive(Args, Debug)]
pub struct StartArgs {
    /// Sandbox name (its directory under <home>/sandboxes)
    #[arg(long, default_value = "default")]
    name: String,
    /// The server engine; --basedir must hold one of it
    #[arg(long, value_enum, default_value = "mysql")]
    engine: Engine,
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
                    s.binaries.label(),
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
    spec.flavour = Some(match a.engine {
        Engine::Mysql => Flavour::MariaDb,
        Engine::Postgres => Flavour::Postgres,
    });
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
    let sb = Sandbox::start(spec)?;
    let st = sb.detach();
    let version = match st.binaries.flavour {
        Flavour::Postgres => st.binaries.label(),
        _ => st.binaries.version.clone(),
    };
    println!(
        "sandbox '{}' running: {} (pid {})",
        st.name,
        version,
        st.process.map(|p| p.pid).unwrap_or(0)
    );
    if st.binaries.flavour == Flavour::Postgres {
        print_postgres(&st);
        return Ok(());
    }
    println!("  socket  {}", st.socket.display());
    println!("  port    {} (127.0.0.1)", st.port);
    println!("  datadir {}", st.datadir.display());
    println!("  log     {}", st.error_log.display());
    println!(
        "  connect mariadb --defaults-file={}   (root over TCP; the password is in that 0600 file)",
        st.client_defaults().display()
    );
    println!(
        "  local   mariadb --no-defaults -uroot -S {}   (over the socket, which only this sandbox's owner can reach)",
        st.socket.display()
    );
    println!("  stop    psbench sandbox stop {}", st.name);
    Ok(())
}

fn print_postgres(st: &SandboxState) {
    println!("  socket  {}/.s.PGSQL.{}", st.socket.display(), st.port);
    println!("  port    {} (127.0.0.1)", st.port);
    println!("  datadir {}", st.datadir.display());
    println!("  log     {}", st.error_log.display());
    println!(
        "  connect PGPASSFILE={} psql -h 127.0.0.1 -p {} -U postgres   (the password is in that 0600 file)",
        crate::server::access::pgpass_file(&st.dir).display(),
        st.port
    );
    println!(
        "  local   psql -h {} -p {} -U postgres   (over the socket, which only this sandbox's owner can reach)",
        st.socket.display(),
        st.port
    );
    println!("  stop    psbench sandbox stop {}", st.name);
}
