//! Provenance tables: where and with what the results were measured (the documents, the host,
//! each variant's server, options and performance_schema state, the variables that differ).

use super::grid::{Column, Kind, Table, Value};
use super::subject::{variants, Subject};
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
    type Field = (&'static str, fn(&super::subject::Source) -> String);
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
            "Measured with {}, after {} s of warm-up per cell; changes are called beyond {:.0}%.",
            rounds_note(&s.results),
            st.warmup,
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

/// Each variant's server as it ran: version, binary, options, statements, PFS state.
pub fn servers(s: &Subject) -> Table {
    let res = &s.results;
    let rows = servers_in_order(s)
        .into_iter()
        .map(|v| {
            let p = &res.variants[&v];
            let options = p
                .options
                .iter()
                .map(|o| o.display())
                .collect::<Vec<_>>()
                .join(" ");
            let pfs = match &p.pfs {
                Some(pfs) if pfs.enabled => format!(
                    "ON: {} of {} instruments enabled, {} timed; {:.1} MB",
                    pfs.instruments_enabled,
                    pfs.instruments,
                    pfs.instruments_timed,
                    pfs.memory_bytes as f64 / 1048576.0
                ),
                Some(_) => "OFF".to_string(),
                // A server without a performance_schema (PostgreSQL).
                None => "none".to_string(),
            };
            let consumers = p.pfs.as_ref().map(|f| f.consumers_on.join(" "));
            vec![
                text(v),
                text(p.server_version.clone()),
                text(if p.server_sha256.is_empty() {
                    p.server_binary.clone()
                } else {
                    // A prefix tells builds apart; results.json has the whole digest.
                    let short: String = p.server_sha256.chars().take(12).collect();
                    format!("{} (sha256 {short}…)", p.server_binary)
                }),
                text(options),
                text(p.sql.join("; ")),
                text(pfs),
                text(consumers.unwrap_or_default()),
            ]
        })
        .collect();
    Table {
        id: "servers".into(),
        title: "Servers".into(),
        note: "Each variant's server as read after start: options passed, statements run, the effective performance_schema state. \"[cost]\" is the server run under callgrind.".into(),
        columns: ["variant", "version", "binary", "options", "sql", "performance_schema", "consumers on"]
            .iter()
            .map(|n| label(n))
            .collect(),
        rows,
        legend: Vec::new(),
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

pub fn all(s: &Subject) -> Vec<Table> {
    vec![sources(s), servers(s), differing_variables(s)]
}

/// How long a cell runs: sysbench cells for the study's duration; Insert Benchmark load steps
/// run to their row count and query steps for their own time, whatever the duration says.
pub(super) fn rounds_note(res: &StudyResults) -> String {
    let ibench = res.cells.iter().any(|c| c.insert_benchmark.is_some());
    let sysbench = res.cells.iter().any(|c| c.insert_benchmark.is_none());
    let mut how = Vec::new();
    if sysbench {
        how.push(format!("{} s per sysbench cell", res.study.duration));
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
