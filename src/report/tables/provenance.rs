//! Provenance tables: where and with what the results were measured (the documents, the host,
//! each variant's server, options and performance_schema state, the variables that differ).

use crate::report::grid::{Column, Kind, Table, Value};
use crate::report::subject::{variants, Subject};
use crate::results::StudyResults;
use std::collections::BTreeSet;
use std::time::{Duration, UNIX_EPOCH};

/// Variables that differ between sandboxes by construction (paths, ports, names), not by the
/// variant's settings.
const SANDBOX_LOCAL: &[&str] = &[
    "datadir",
    "general_log_file",
    "hostname",
    "log_bin_basename",
    "log_bin_index",
    "log_error",
    "pid_file",
    "port",
    "relay_log_basename",
    "relay_log_index",
    "server_uuid",
    "slow_query_log_file",
    "socket",
    "tmpdir",
    "innodb_tmpdir",
    "timestamp",
    "pseudo_thread_id",
    "gtid_domain_id",
    "wsrep_node_name",
    "report_port",
    "server_uid",
];

fn label(s: &str) -> Column {
    Column {
        name: s.to_string(),
        kind: Kind::Label,
    }
}

fn text(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

pub fn utc(unix: u64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(unix)).to_string()
}

/// The documents behind the report, a column each.
pub fn sources(s: &Subject) -> Table {
    let mut columns = vec![label("")];
    columns.extend(s.sources.iter().map(|src| {
        label(if src.label.is_empty() {
            "value"
        } else {
            &src.label
        })
    }));
    type Field = (&'static str, fn(&crate::report::subject::Source) -> String);
    let fields: [Field; 12] = [
        ("results", |x| x.path.clone()),
        ("study", |x| x.study.clone()),
        ("study file", |x| x.origin.clone()),
        ("psbench version", |x| x.tool_version.clone()),
        ("host", |x| x.host.hostname.clone()),
        ("kernel", |x| x.host.kernel.clone()),
        ("cpu", |x| x.host.cpu_model.clone()),
        ("cpus", |x| x.host.cpus.to_string()),
        ("memory", |x| format!("{} MB", x.host.memory_mb)),
        ("started", |x| utc(x.started_unix)),
        ("finished", |x| {
            x.finished_unix
                .map(utc)
                .unwrap_or_else(|| "not finished".into())
        }),
        ("seed", |x| x.seed.to_string()),
    ];
    let rows = fields
        .iter()
        .map(|(name, f)| {
            let mut row = vec![text(*name)];
            row.extend(s.sources.iter().map(|src| text(f(src))));
            row
        })
        .collect();
    let st = &s.results.study;
    Table {
        id: "provenance".into(),
        title: "Study and host".into(),
        note: format!(
            "Measured with {}{}; changes are called beyond {:.0}%.",
            rounds_note(&s.results),
            if s.results.cells.iter().all(|c| c.unit.is_some()) {
                String::new()
            } else {
                format!(", after {} s of warm-up per cell", st.warmup)
            },
            st.threshold * 100.0
        ),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: String::new(),
    }
}

/// The recorded servers in the study's order: each variant, then its other servers (the
/// cost-mode one is recorded as "NAME [cost]"), then anything else.
fn servers_in_order(s: &Subject) -> Vec<String> {
    let res = &s.results;
    let mut out: Vec<String> = Vec::new();
    for v in variants(res) {
        let prefix = format!("{v} [");
        out.extend(
            res.variants
                .keys()
                .filter(|k| **k == v || k.starts_with(&prefix))
                .cloned(),
        );
    }
    for k in res.variants.keys() {
        if !out.contains(k) {
            out.push(k.clone());
        }
    }
    out
}

/// A column of the servers table: each server's items (options, statements and consumers
/// are lists; the others one item) and how a cell joins them.
struct ServerColumn {
    name: &'static str,
    join: &'static str,
    items: Vec<Vec<String>>,
}

/// One server's items of each column, in the table's order.
fn server_items(p: &crate::results::VariantProvenance) -> [Vec<String>; 8] {
    let one = |s: String| if s.is_empty() { Vec::new() } else { vec![s] };
    let binary = if p.server_sha256.is_empty() {
        p.server_binary.clone()
    } else {
        // A prefix tells builds apart; results.json has the whole digest.
        let short: String = p.server_sha256.chars().take(12).collect();
        format!("{} (sha256 {short}…)", p.server_binary)
    };
    let pfs = match &p.pfs {
        Some(pfs) if pfs.enabled => format!(
            "ON: {} of {} instruments enabled, {} timed; {:.1} MB",
            pfs.instruments_enabled,
            pfs.instruments,
            pfs.instruments_timed,
            pfs.memory_bytes as f64 / 1048576.0
        ),
        Some(pfs) if pfs.compiled_out => "compiled out (no engine, plugin or variable)".to_string(),
        Some(_) => "OFF".to_string(),
        // A server without a performance_schema (PostgreSQL).
        None => "none".to_string(),
    };
    [
        one(p.server_version.clone()),
        one(binary),
        p.build.as_ref().map(built).unwrap_or_default(),
        p.config_file.as_ref().map(config_file).unwrap_or_default(),
        p.options.iter().map(|o| o.display()).collect(),
        p.sql.clone(),
        one(pfs),
        p.pfs
            .as_ref()
            .map(|f| f.consumers_on.clone())
            .unwrap_or_default(),
    ]
}

/// Where a server came from, and the optimisation flags of its C compiler where the server or
/// psbench's build recorded them (the whole line is in results.json).
fn built(b: &crate::results::ServerBuild) -> Vec<String> {
    use crate::results::Origin;
    let origin = match &b.origin {
        Origin::System { package: Some(p) } => format!("the system's {p}"),
        Origin::System { package: None } => "the system's".to_string(),
        Origin::Release { release, channel } => format!("{release} from {channel}"),
        Origin::Basedir { path } => format!("the tree {path}"),
        Origin::Build {
            source,
            flags,
            compiler,
            ..
        } => format!("built by psbench from {source}, flag set {flags}, {compiler}"),
    };
    let optimisation: Vec<&str> = b
        .build_flags
        .iter()
        .flatten()
        .filter_map(|f| {
            f.strip_prefix("CFLAGS=")
                .or_else(|| f.strip_prefix("-DCMAKE_C_FLAGS="))
        })
        .flat_map(str::split_whitespace)
        .filter(|t| {
            ["-O", "-march=", "-mtune=", "-flto"]
                .iter()
                .any(|p| t.starts_with(p))
        })
        .collect();
    let mut out = vec![origin];
    if !optimisation.is_empty() {
        out.push(format!("C compiler {}", optimisation.join(" ")));
    }
    out
}

/// A variant's own my.cnf or postgresql.conf: the file, and each line that did not set what
/// it says (the sandbox's own settings, host paths, a line set again).
fn config_file(f: &crate::results::ConfigFileRecord) -> Vec<String> {
    let mut out = vec![format!("{} ({} settings passed)", f.path, f.settings)];
    out.extend(f.overridden.iter().map(|o| format!("not passed: {o}")));
    out
}

/// The items every server has, in the first server's order.
fn common(items: &[Vec<String>]) -> Vec<String> {
    match items {
        [first, rest @ ..] if !rest.is_empty() => first
            .iter()
            .filter(|x| rest.iter().all(|r| r.contains(x)))
            .cloned()
            .collect(),
        _ => Vec::new(),
    }
}

/// Each variant's server as it ran: version, binary, options, statements, PFS state. What
/// every server shares is said once under the table and each row keeps only what differs,
/// so eight identical options are not repeated per row; a column that would be empty in
/// every row is left out.
pub fn servers(s: &Subject) -> Table {
    let res = &s.results;
    let names = servers_in_order(s);
    let per_server: Vec<[Vec<String>; 8]> = names
        .iter()
        .map(|v| server_items(&res.variants[v]))
        .collect();
    let heads = [
        ("version", " "),
        ("binary", " "),
        ("built", "; "),
        ("config file", "; "),
        ("options", " "),
        ("sql", "; "),
        ("performance_schema", " "),
        ("consumers on", " "),
    ];
    let columns: Vec<ServerColumn> = heads
        .iter()
        .enumerate()
        .map(|(i, (name, join))| ServerColumn {
            name,
            join,
            items: per_server.iter().map(|x| x[i].clone()).collect(),
        })
        .collect();
    let mut legend = Vec::new();
    let mut kept: Vec<(&ServerColumn, Vec<Vec<String>>)> = Vec::new();
    for c in &columns {
        let shared = common(&c.items);
        if !shared.is_empty() {
            legend.push(format!("Every server: {} {}.", c.name, shared.join(c.join)));
        }
        let rest: Vec<Vec<String>> = c
            .items
            .iter()
            .map(|x| x.iter().filter(|i| !shared.contains(i)).cloned().collect())
            .collect();
        if rest.iter().any(|x| !x.is_empty()) {
            kept.push((c, rest));
        }
    }
    let rows = names
        .iter()
        .enumerate()
        .map(|(r, v)| {
            let mut row = vec![text(v.clone())];
            row.extend(kept.iter().map(|(c, rest)| match rest[r].as_slice() {
                [] => Value::Missing("—".into()),
                [one] => text(one.clone()),
                items => Value::List {
                    items: items.to_vec(),
                    sep: c.join,
                },
            }));
            row
        })
        .collect();
    // Said only where a variant named its own file.
    let file = match per_server.iter().any(|x| !x[3].is_empty()) {
        true => "its own configuration file and the lines of it not passed, ",
        false => "",
    };
    let mut table_columns = vec![label("variant")];
    table_columns.extend(kept.iter().map(|(c, _)| label(c.name)));
    Table {
        id: "servers".into(),
        title: "Servers".into(),
        note: format!("Each variant's server as read after start: {file}options passed, statements run, the effective performance_schema state. What every server shares is listed once under the table; a row shows only what differs (— nothing more). \"[cost]\" is the server run under callgrind."),
        columns: table_columns,
        rows,
        legend,
        when_empty: "No variant provenance recorded.".into(),
    }
}

/// Effective variables whose values differ between variants (sandbox paths and ports aside).
pub fn differing_variables(s: &Subject) -> Table {
    let res = &s.results;
    let vs = servers_in_order(s);
    let names: BTreeSet<&String> = vs
        .iter()
        .flat_map(|v| res.variants[v].variables.keys())
        .filter(|k| !SANDBOX_LOCAL.contains(&k.as_str()))
        .collect();
    let rows = names
        .into_iter()
        .filter_map(|k| {
            let vals: Vec<Option<&String>> = vs
                .iter()
                .map(|v| res.variants[v].variables.get(k))
                .collect();
            // Paths differ per sandbox (datadir, tmpdir, …): where, not what, was run.
            let paths = vals.iter().all(|x| x.is_none_or(|x| x.starts_with('/')));
            if paths || vals.iter().all(|x| *x == vals[0]) {
                return None;
            }
            let mut row = vec![text(k.clone())];
            row.extend(vals.into_iter().map(|x| match x {
                Some(x) => text(x.clone()),
                None => Value::Missing("—".into()),
            }));
            Some(row)
        })
        .collect();
    let mut columns = vec![label("variable")];
    columns.extend(vs.iter().map(|v| label(v)));
    Table {
        id: "variables".into(),
        title: "Effective variables that differ".into(),
        note: "SHOW GLOBAL VARIABLES read after each start, where the variants differ (paths, ports and ids of the sandboxes left out); results.json holds them all.".into(),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: "The variants' effective variables do not differ.".into(),
    }
}

/// performance_schema's `setup_instruments` per class as each server read it back: a row per
/// class, a column per server with performance_schema on.
pub fn instrument_classes(s: &Subject) -> Table {
    let res = &s.results;
    let vs: Vec<(String, &[crate::results::InstrumentClass])> = servers_in_order(s)
        .into_iter()
        .filter_map(|v| {
            let pfs = res.variants[&v].pfs.as_ref()?;
            (pfs.enabled && !pfs.classes.is_empty()).then_some((v, pfs.classes.as_slice()))
        })
        .collect();
    let names: BTreeSet<&str> = vs
        .iter()
        .flat_map(|(_, cs)| cs.iter().map(|c| c.class.as_str()))
        .collect();
    let rows = names
        .into_iter()
        .map(|name| {
            let mut row = vec![text(name)];
            row.extend(
                vs.iter()
                    .map(|(_, cs)| match cs.iter().find(|c| c.class == name) {
                        Some(c) => {
                            text(format!("{} / {} of {}", c.enabled, c.timed, c.instruments))
                        }
                        None => Value::Missing("—".into()),
                    }),
            );
            row
        })
        .collect();
    let mut columns = vec![label("class")];
    columns.extend(vs.iter().map(|(v, _)| label(v)));
    Table {
        id: "instrument-classes".into(),
        title: "performance_schema instruments per class".into(),
        note: "setup_instruments read back after each start (and after a scenario's own SQL): instruments enabled / timed of the class's total. A wait's class is its first three parts.".into(),
        columns,
        rows,
        legend: Vec::new(),
        when_empty: "No server read performance_schema's instruments per class.".into(),
    }
}

pub fn all(s: &Subject) -> Vec<Table> {
    let mut out = vec![sources(s), servers(s), differing_variables(s)];
    let classes = instrument_classes(s);
    if !classes.rows.is_empty() {
        out.push(classes);
    }
    out
}

/// How long a cell runs: cells of transactions (sysbench's, pgbench's, scripts) for the
/// study's duration; Insert Benchmark load steps run to their row count and query steps for
/// their own time, whatever the duration says.
pub(super) fn rounds_note(res: &StudyResults) -> String {
    let ibench = res.cells.iter().any(|c| c.insert_benchmark.is_some());
    let timed = res
        .cells
        .iter()
        .any(|c| c.insert_benchmark.is_none() && c.unit.is_none());
    let whole = res.cells.iter().any(|c| c.unit.is_some());
    let mut how = Vec::new();
    if timed {
        how.push(format!("{} s per cell of transactions", res.study.duration));
    }
    if whole {
        how.push("a replay's cell runs its whole log, unwarmed".to_string());
    }
    if ibench {
        how.push(
            "Insert Benchmark load steps run to their row count, query steps for their query time"
                .to_string(),
        );
    }
    let mut note = format!("{} round(s), interleaved", res.study.rounds);
    for h in how {
        note = note + "; " + &h;
    }
    note
}
