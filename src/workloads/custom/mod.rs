//! The user's own workload: scripts in pgbench's language (workloads::script), run over
//! psbench's connections to MariaDB, MySQL or PostgreSQL. Each script is a transaction
//! class, chosen per transaction by weight as pgbench chooses them; the same `--random-seed`
//! draws the same values as pgbench with one client per thread (`-c N -j N`).

mod sql;
mod worker;

use crate::connection::{Endpoint, Session};
use crate::error::usage;
use crate::workloads::script::{self, Mode, Script, Seeding};
use crate::workloads::{Worker, Workload};
use anyhow::Result;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// How statements go to the server: pgbench's `-M`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryMode {
    /// Values written into the statement's text.
    Simple,
    /// PostgreSQL's extended protocol, the statement parsed at each execution.
    Extended,
    /// Server-side prepared statements, prepared once per connection.
    Prepared,
}

impl QueryMode {
    pub const NAMES: &'static [&'static str] = &["simple", "extended", "prepared"];

    pub fn parse(s: &str) -> Result<QueryMode> {
        match s {
            "simple" => Ok(QueryMode::Simple),
            "extended" => Ok(QueryMode::Extended),
            "prepared" => Ok(QueryMode::Prepared),
            other => Err(usage(format!(
                "query_mode '{other}' is not one of {}",
                QueryMode::NAMES.join(", ")
            ))),
        }
    }

    /// How the interpreter hands statements over: with their values apart, or written in.
    fn interpreter_mode(self) -> Mode {
        match self {
            QueryMode::Simple => Mode::Simple,
            QueryMode::Extended | QueryMode::Prepared => Mode::Prepared,
        }
    }
}

/// One script file as a step names it: `FILE[@WEIGHT]`.
#[derive(Clone, Debug)]
pub struct ScriptFile {
    pub path: String,
    pub weight: u32,
    pub text: String,
}

impl ScriptFile {
    /// Read `FILE[@WEIGHT]`; a path that is not absolute is taken from `dir`.
    pub fn read(arg: &str, dir: &Path) -> Result<ScriptFile> {
        let (path, weight) = script::split_weight(arg).map_err(usage)?;
        let full = dir.join(&path);
        let text = std::fs::read_to_string(&full)
            .map_err(|e| usage(format!("cannot read script {}: {e}", full.display())))?;
        Ok(ScriptFile {
            path: full.to_string_lossy().into_owned(),
            weight,
            text,
        })
    }

    /// Its SHA-256, as results record it.
    pub fn sha256(&self) -> String {
        use sha2::{Digest, Sha256};
        format!("{:x}", Sha256::digest(self.text.as_bytes()))
    }
}

/// What a run of scripts is given.
#[derive(Clone, Debug)]
pub struct ScriptOptions {
    pub mode: QueryMode,
    /// `-D NAME=VALUE`, in order.
    pub vars: Vec<(String, String)>,
    /// Keep each command's time (pgbench's `-r`).
    pub per_statement: bool,
    /// `psbench bench script`: a client whose transaction fails stops, as pgbench's does,
    /// and its words are kept; a study counts the failure and goes on.
    pub abort_on_failure: bool,
}

/// Scripts in pgbench's language as a workload.
pub struct ScriptWorkload {
    name: String,
    scripts: Arc<Vec<(Script, u32)>>,
    /// The script names as classes: `NAME SCRIPT` (just `NAME` for one script).
    classes: Vec<String>,
    opts: ScriptOptions,
    /// Where the clients' debug() lines and a failed client's words go.
    pub(crate) log: Arc<Mutex<Outcomes>>,
}

/// What the clients leave behind: the failures that stopped them, each command's time.
#[derive(Debug, Default)]
pub struct Outcomes {
    /// pgbench's words for each client that stopped on a failure.
    pub aborted: Vec<String>,
    /// Per script, per command: (executions, total time).
    pub timings: Vec<Vec<(u64, std::time::Duration)>>,
}

/// A script's name in reports: its file name without `.sql`.
fn short_name(path: &str) -> String {
    let file = Path::new(path)
        .file_name()
        .map_or(path.to_string(), |f| f.to_string_lossy().into_owned());
    file.strip_suffix(".sql").unwrap_or(&file).to_string()
}

impl ScriptWorkload {
    /// `files` parsed (a mistake is a usage error with file and line), named `name`.
    pub fn new(name: &str, files: &[ScriptFile], opts: ScriptOptions) -> Result<ScriptWorkload> {
        if files.is_empty() {
            return Err(usage("a script step needs at least one script"));
        }
        let mut scripts = Vec::new();
        for f in files {
            let parsed = script::parse(&f.path, &f.text).map_err(|e| usage(e.to_string()))?;
            scripts.push((parsed, f.weight));
        }
        if scripts.iter().all(|(_, w)| *w == 0) {
            return Err(usage("every script has weight 0: at least one must run"));
        }
        let classes = if files.len() == 1 {
            vec![name.to_string()]
        } else {
            files
                .iter()
                .map(|f| format!("{name} {}", short_name(&f.path)))
                .collect()
        };
        let timings = scripts
            .iter()
            .map(|(s, _)| vec![(0, std::time::Duration::ZERO); s.command_count()])
            .collect();
        Ok(ScriptWorkload {
            name: name.to_string(),
            scripts: Arc::new(scripts),
            classes,
            opts,
            log: Arc::new(Mutex::new(Outcomes {
                aborted: Vec::new(),
                timings,
            })),
        })
    }

    /// This workload with script `i` alone (cost mode counts each script apart).
    pub fn only(&self, i: usize) -> ScriptWorkload {
        let (script, _) = self.scripts[i].clone();
        let timings = vec![vec![(0, std::time::Duration::ZERO); script.command_count()]];
        ScriptWorkload {
            name: self.classes[i].clone(),
            classes: vec![self.classes[i].clone()],
            scripts: Arc::new(vec![(script, 1)]),
            opts: self.opts.clone(),
            log: Arc::new(Mutex::new(Outcomes {
                aborted: Vec::new(),
                timings,
            })),
        }
    }

    /// The classes' names, in the scripts' order.
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// The scripts, parsed.
    pub fn scripts(&self) -> &[(Script, u32)] {
        &self.scripts
    }

    /// What the clients left behind so far.
    pub fn outcomes(&self) -> std::sync::MutexGuard<'_, Outcomes> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// PostgreSQL's extended protocol is PostgreSQL's: refused elsewhere before anything runs.
    pub fn refused_on(mode: QueryMode, dialect: crate::connection::Dialect) -> Option<String> {
        (mode == QueryMode::Extended && !dialect.supports_pgbench()).then(|| {
            "query_mode = \"extended\" is PostgreSQL's protocol: on MySQL and MariaDB use \
             \"prepared\" or \"simple\""
                .to_string()
        })
    }
}

impl Workload for ScriptWorkload {
    fn name(&self) -> &str {
        &self.name
    }

    /// The scripts' data comes from the study's `[dataset]`: nothing of their own to make.
    fn prepare(&self, _endpoint: &Endpoint, _threads: usize, _seed: u64) -> Result<()> {
        Ok(())
    }

    fn cleanup(&self, _endpoint: &Endpoint) -> Result<()> {
        Ok(())
    }

    fn worker(
        &self,
        thread: usize,
        threads: usize,
        seed: u64,
        conn: &mut Session,
    ) -> Result<Box<dyn Worker>> {
        if let Some(why) = Self::refused_on(self.opts.mode, conn.dialect()) {
            return Err(usage(why));
        }
        let seeding = Seeding::new(seed, threads);
        let client = script::Client::new(
            self.scripts.clone(),
            thread,
            &seeding,
            1,
            &self.opts.vars,
            self.opts.mode.interpreter_mode(),
        );
        Ok(Box::new(worker::ScriptWorker::new(
            client,
            self.scripts.clone(),
            self.opts.clone(),
            self.log.clone(),
            thread,
            conn,
        )?))
    }

    fn class_names(&self) -> Vec<String> {
        self.classes.clone()
    }

    /// Each script's SQL commands with their mean latency over the transactions that
    /// completed (meta commands cost the client only and are left out).
    fn take_statement_latencies(&self) -> Vec<Vec<(usize, String, f64)>> {
        if !self.opts.per_statement {
            return Vec::new();
        }
        let mut log = self.outcomes();
        let mut out = Vec::new();
        for (i, (script, _)) in self.scripts.iter().enumerate() {
            let mut lines = Vec::new();
            for (command, sql) in script.sql_commands() {
                let (n, total) = log.timings[i][command];
                let mean = if n > 0 {
                    total.as_secs_f64() * 1e3 / n as f64
                } else {
                    0.0
                };
                lines.push((sql.line, script.command_text(command), mean));
            }
            out.push(lines);
            for slot in &mut log.timings[i] {
                *slot = (0, std::time::Duration::ZERO);
            }
        }
        out
    }
}
