//! Reading callgrind's dumps: one dump's instructions per thread, the thread that served the
//! measured connection, and the dump a process writes when it exits.

use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a process may take to exit and write its dump under valgrind.
pub const DUMP_WAIT: Duration = Duration::from_secs(120);

/// The dump a process wrote when it exited (`callgrind.out.<pid>-01`, its one thread): its
/// instructions without the request reads, once it is there (waiting up to `limit`).
pub fn exit_dump_ir(dir: &Path, pid: i32, limit: Duration) -> Result<u64> {
    let path = dir.join(format!("callgrind.out.{pid}-01"));
    let start = std::time::Instant::now();
    loop {
        // The totals line ends a dump: with it, the file is complete.
        if let Ok(text) = std::fs::read_to_string(&path) {
            if text.lines().any(|l| l.starts_with("totals:")) {
                let ir = parse_total_ir(&text).unwrap_or(0);
                // pid_max is often 32768: a later backend may get this pid, and must not
                // find this dump as its own.
                std::fs::remove_file(&path)
                    .with_context(|| format!("removing the counted dump {}", path.display()))?;
                let reads = request_reads_ir(&text).ok_or_else(|| no_request_reads(pid))?;
                return Ok(ir.saturating_sub(reads));
            }
        }
        if start.elapsed() > limit {
            bail!(
                "no complete callgrind dump of pid {pid} at {}",
                path.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One dump: its number and the instructions (Ir) of each thread in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Dump {
    pub number: u32,
    pub threads: BTreeMap<u32, u64>,
    /// The threads that made no call into a request read (background threads, or every thread
    /// of a server whose request reads have no name).
    pub without_reads: BTreeSet<u32>,
    /// The threads that worked for the connection's statement (they name a function of
    /// [`STATEMENT_HELPERS`]), such as InnoDB's parallel index build in MySQL 8.0.27 and later.
    pub helpers: BTreeSet<u32>,
}

/// Why a server cannot be counted when the thread that served the client never called a
/// request read by name.
pub fn no_request_reads(pid: i32) -> anyhow::Error {
    anyhow::anyhow!(
        "cost mode cannot count this server: the callgrind dump of the process that served the \
         client (pid {pid}) names none of the functions that read a request ({}), so the wait \
         for the next request cannot be left out of the count; link-time optimisation may have \
         inlined them, or the tree has no symbols: count a build without LTO (flags = \"release\" \
         or \"v3\") or with its symbols",
        REQUEST_READS.join(", ")
    )
}

/// The serving thread must have called a request read by name in at least one dump.
pub fn check_request_reads(dumps: &[Dump], thread: u32, pid: i32) -> Result<()> {
    if !dumps.is_empty() && dumps.iter().all(|d| d.without_reads.contains(&thread)) {
        return Err(no_request_reads(pid));
    }
    Ok(())
}

/// The newest dump of `pid` under `dir`. With `--separate-threads=yes` a dump is one file per
/// thread, `callgrind.out.<pid>.<dump>-<thread>`.
pub fn newest_dump(dir: &Path, pid: i32) -> Result<Dump> {
    let prefix = format!("callgrind.out.{pid}.");
    let mut files: Vec<(u32, u32, PathBuf)> = Vec::new();
    for e in std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
    {
        let name = e.file_name().to_string_lossy().to_string();
        if let Some((dump, thread)) = name.strip_prefix(&prefix).and_then(dump_and_thread) {
            files.push((dump, thread, e.path()));
        }
    }
    let number = files
        .iter()
        .map(|(d, _, _)| *d)
        .max()
        .with_context(|| format!("no callgrind dump of pid {pid} in {}", dir.display()))?;
    let mut threads = BTreeMap::new();
    let mut without_reads = BTreeSet::new();
    let mut helpers = BTreeSet::new();
    for (_, thread, path) in files.iter().filter(|(d, _, _)| *d == number) {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let ir =
            parse_total_ir(&text).with_context(|| format!("no totals in {}", path.display()))?;
        let reads = request_reads_ir(&text);
        if reads.is_none() {
            without_reads.insert(*thread);
        }
        if names_a_helper(&text) {
            helpers.insert(*thread);
        }
        threads.insert(*thread, ir.saturating_sub(reads.unwrap_or(0)));
    }
    Ok(Dump {
        number,
        threads,
        without_reads,
        helpers,
    })
}

/// Functions that only a thread working for a client's statement runs: MySQL 8.0.27 and later
/// scan the table and build an index on InnoDB's parallel reader threads
/// (`innodb_parallel_read_threads`, `innodb_ddl_threads`), which the connection waits for, so
/// `ALTER TABLE … ADD INDEX` does most of its work off the connection's thread. Seen in
/// MySQL 9.7.2's dumps of l.x: four such threads beside the connection's, sharing the work
/// differently in each attempt (the connection's own part 249 and 140 million instructions)
/// while their sum repeated within 0.01%.
const STATEMENT_HELPERS: &[&str] = &["Parallel_reader::", "ddl::"];

/// Whether a dump (one thread's file) names a function of [`STATEMENT_HELPERS`] as a caller
/// or callee (`fn=(id) name`, `cfn=(id) name`).
fn names_a_helper(dump: &str) -> bool {
    dump.lines().any(|line| {
        let spec = line
            .strip_prefix("fn=")
            .or_else(|| line.strip_prefix("cfn="));
        spec.and_then(|s| s.split_once(')'))
            .is_some_and(|(_, name)| STATEMENT_HELPERS.iter().any(|h| name.trim().starts_with(h)))
    })
}

/// The thread that served the connection in one dump: the busiest of those that read a
/// request (a write step's busiest thread can be one of its helpers), else the busiest.
pub fn serving_thread(dump: &Dump) -> Option<u32> {
    let reading = dump
        .threads
        .iter()
        .filter(|(t, _)| !dump.without_reads.contains(t))
        .max_by_key(|(_, ir)| **ir)
        .map(|(t, _)| *t);
    reading.or_else(|| busiest_thread(std::slice::from_ref(dump)))
}

/// The instructions of a statement: its serving thread's and its helpers'.
pub fn statement_ir(dump: &Dump, serving: u32) -> u64 {
    let helpers = dump.helpers.iter().filter(|t| **t != serving);
    let helped: u64 = helpers
        .map(|t| dump.threads.get(t).copied().unwrap_or(0))
        .sum();
    dump.threads.get(&serving).copied().unwrap_or(0) + helped
}

/// "3-05" → (3, 5).
fn dump_and_thread(rest: &str) -> Option<(u32, u32)> {
    let (dump, thread) = rest.split_once('-')?;
    Some((dump.parse().ok()?, thread.parse().ok()?))
}

/// The thread with the most instructions over all `dumps`: the measured connection's, since
/// every window's transactions ran on it.
pub fn busiest_thread(dumps: &[Dump]) -> Option<u32> {
    let mut total: BTreeMap<u32, u64> = BTreeMap::new();
    for d in dumps {
        for (t, ir) in &d.threads {
            *total.entry(*t).or_default() += ir;
        }
    }
    total.into_iter().max_by_key(|(_, ir)| *ir).map(|(t, _)| t)
}

/// Functions that read the next request from the client: whether it had already arrived (one
/// `recv`) or not (`recv`, `poll`, `recv` again) depends on timing, which changed a window's
/// count by up to 0.4% here, so their inclusive cost is not counted. MariaDB and MySQL both
/// read through `vio_read` (C) or `vio_read(Vio*, …)` (C++), sometimes via `vio_read_buff`;
/// a PostgreSQL backend through `secure_read`, which waits for the socket when nothing came.
/// A PostgreSQL backend also flushes its statistics when idle at most once a second
/// (`pgstat_report_stat`): how often depends on the window's wall time, not on its work.
const REQUEST_READS: &[&str] = &["vio_read", "secure_read", "pgstat_report_stat"];

/// The inclusive instructions of calls into [`REQUEST_READS`] functions from outside them, as
/// a dump's call records give them (`cfn=`, `calls=`, then the call's cost line); `None` when
/// the dump names none of them.
pub fn request_reads_ir(dump: &str) -> Option<u64> {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    // Resolves `(id) name` / `(id)` against the dump's name compression.
    let mut name_of = |spec: &str| -> String {
        let spec = spec.trim();
        match spec.strip_prefix('(').and_then(|r| r.split_once(')')) {
            Some((id, rest)) => {
                let rest = rest.trim();
                if !rest.is_empty() {
                    names.insert(id.to_string(), rest.to_string());
                }
                names.get(id).cloned().unwrap_or_default()
            }
            None => spec.to_string(),
        }
    };
    let reads = |name: &str| REQUEST_READS.iter().any(|r| name.starts_with(r));
    let (mut caller, mut callee) = (String::new(), String::new());
    let mut call_cost_next = false;
    let mut total = 0u64;
    let mut named = false;
    for line in dump.lines() {
        if let Some(spec) = line.strip_prefix("fn=") {
            caller = name_of(spec);
            named |= reads(&caller);
        } else if let Some(spec) = line.strip_prefix("cfn=") {
            callee = name_of(spec);
            named |= reads(&callee);
        } else if line.starts_with("calls=") {
            call_cost_next = true;
        } else if call_cost_next
            && line.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c))
        {
            call_cost_next = false;
            if reads(&callee) && !reads(&caller) {
                total += line
                    .split_whitespace()
                    .nth(1)
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or(0);
            }
        }
    }
    named.then_some(total)
}

/// The `totals:` (or `summary:`) line of a callgrind dump; its first number is Ir.
pub fn parse_total_ir(dump: &str) -> Option<u64> {
    ["totals:", "summary:"].iter().find_map(|tag| {
        dump.lines()
            .find_map(|l| l.strip_prefix(tag))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_counts_once_so_a_reused_pid_waits_for_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let dump = dir.path().join("callgrind.out.4242-01");
        let text = "events: Ir\nsummary: 5000\nfn=(1) PostgresMain\ncfn=(2) secure_read\ncalls=3 0\n0 700\n\ntotals: 5000\n";
        std::fs::write(&dump, text).unwrap();
        let limit = std::time::Duration::from_millis(200);
        assert_eq!(exit_dump_ir(dir.path(), 4242, limit).unwrap(), 4300);
        assert!(!dump.exists());
        // The next backend with pid 4242 has not written its dump yet: no count.
        assert!(exit_dump_ir(dir.path(), 4242, limit).is_err());
        // A backend whose dump names no request read cannot be counted, and says why.
        std::fs::write(&dump, "events: Ir\nsummary: 5000\n\ntotals: 5000\n").unwrap();
        let e = exit_dump_ir(dir.path(), 4242, limit)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("names none of the functions that read a request"),
            "{e}"
        );
    }

    #[test]
    fn reads_callgrind_totals() {
        let dump = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 4270512\n\ntotals: 4270512\n";
        assert_eq!(parse_total_ir(dump), Some(4270512));
        assert_eq!(parse_total_ir("events: Ir\n"), None);
    }

    #[test]
    fn request_reads_are_their_calls_from_outside_counted_once() {
        // Shaped like a real dump: names compressed to ids after first use, a nested
        // vio_read_buff -> vio_read call that must not be counted twice.
        let dump = "events: Ir\nsummary: 1000000\n\
fn=(10) my_net_read_packet\n0 500\n\
cfn=(12) vio_read_buff\ncalls=1000 0 \n0 300000\n\
cfn=(14) vio_read\ncalls=1000 0 \n0 95000\n0 7000\n\
fn=(12)\n0 1000\n\
cfn=(14)\ncalls=10 0 \n0 250000\n\
fn=(20) do_command(THD*, bool)\n\
cfn=(10)\ncalls=1000 0\n0 600000\n";
        assert_eq!(request_reads_ir(dump), Some(395_000));
        // C++ names, as MySQL 8.0's dumps give them.
        let cpp = "fn=(1) net_read_raw_loop(NET*, unsigned long)\ncfn=(2) vio_read(Vio*, unsigned char*, unsigned long)\ncalls=5 0\n0 1234\n";
        assert_eq!(request_reads_ir(cpp), Some(1234));
        // A dump that names no request read (LTO inlined it, or no symbols): not zero, none.
        assert_eq!(request_reads_ir("fn=(1) main\n0 5\n"), None);
        assert_eq!(
            request_reads_ir(
                "fn=(1) 0x0000000000a1b2c3\ncfn=(2) 0x00000000004d5e6f\ncalls=5 0\n0 1234\n"
            ),
            None
        );
    }

    #[test]
    fn names_dump_and_thread() {
        assert_eq!(dump_and_thread("3-05"), Some((3, 5)));
        assert_eq!(dump_and_thread("3"), None);
    }

    #[test]
    fn the_busiest_thread_is_chosen_over_all_dumps_not_per_dump() {
        // Thread 2 does a one-off burst in the first dump; thread 7 serves every window.
        let d = |n, a, b| Dump {
            number: n,
            threads: BTreeMap::from([(2, a), (7, b)]),
            without_reads: BTreeSet::from([2]),
            helpers: BTreeSet::new(),
        };
        let dumps = [
            d(1, 60_000_000, 42_000_000),
            d(2, 1_000, 84_000_000),
            d(3, 1_000, 126_000_000),
        ];
        assert_eq!(busiest_thread(&dumps), Some(7));
        assert!(check_request_reads(&dumps, 7, 1).is_ok());
        // The serving thread never read a request by name in any dump: refused, by name.
        let e = check_request_reads(&dumps, 2, 1).unwrap_err().to_string();
        assert!(
            e.contains("vio_read, secure_read") && e.contains("LTO"),
            "{e}"
        );
    }

    #[test]
    fn a_statement_counts_its_connection_and_the_threads_that_worked_for_it() {
        // As MySQL 9.7.2's l.x: thread 32 read the request and shares the index build with
        // parallel reader threads 35 to 38, the busiest of them busier than the connection;
        // 12 is a background thread (a page cleaner).
        let dump = Dump {
            number: 4,
            threads: BTreeMap::from([
                (12, 7_173_868),
                (32, 139_952_822),
                (35, 192_709_357),
                (36, 204_638_609),
                (37, 215_018_312),
                (38, 46_049_900),
            ]),
            without_reads: BTreeSet::from([12, 35, 36, 37, 38]),
            helpers: BTreeSet::from([32, 35, 36, 37, 38]),
        };
        assert_eq!(busiest_thread(std::slice::from_ref(&dump)), Some(37));
        assert_eq!(serving_thread(&dump), Some(32));
        assert_eq!(statement_ir(&dump, 32), 798_369_000);
        // Without helpers the statement is its connection's alone.
        let alone = Dump {
            helpers: BTreeSet::new(),
            ..dump.clone()
        };
        assert_eq!(statement_ir(&alone, 32), 139_952_822);
        // No thread read a request by name: the busiest, which the read check then refuses.
        let unnamed = Dump {
            without_reads: dump.threads.keys().copied().collect(),
            ..dump
        };
        assert_eq!(serving_thread(&unnamed), Some(37));
    }

    #[test]
    fn a_helper_is_named_as_a_caller_or_a_callee_in_the_dump_s_compression() {
        let worker = "fn=(7) Parallel_reader::worker(Parallel_reader::Thread_ctx*)\n0 12\n";
        let builder =
            "fn=(3) log_writer\ncfn=(9) ddl::Builder::copy_row(ddl::Copy_ctx&)\ncalls=1 0\n0 5\n";
        let background = "fn=(1) srv_master_thread()\ncfn=(2) log_writer\ncalls=1 0\n0 5\n";
        assert!(names_a_helper(worker));
        assert!(names_a_helper(builder));
        assert!(!names_a_helper(background));
    }
}
