//! One workload entry of a study file (`[[workload]]`): what it runs, on which threads, and
//! each kind's own keys.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadStep {
    /// Label in reports; default: the workload's name without `oltp_`.
    #[serde(default)]
    pub name: Option<String>,
    /// A sysbench workload (oltp_point_select, oltp_read_only, …).
    pub workload: String,
    /// Workload options by their sysbench names (range_size, db_ps_mode, rand_type, …).
    #[serde(default)]
    pub options: toml::Table,
    /// Thread counts for this step; default: the study's.
    #[serde(default)]
    pub threads: Option<Vec<u32>>,
    /// Cost-mode windows for this step (heavier transactions need fewer); default: `cost.events`.
    #[serde(default)]
    pub cost_events: Option<Vec<u32>>,
    /// `insert-benchmark` only: its steps in order (default: all ten).
    #[serde(default)]
    pub steps: Option<Vec<String>>,
    /// `script` only: scripts in pgbench's language, each `FILE[@WEIGHT]`, a path relative
    /// to the study file (recorded as the absolute path it named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scripts: Option<Vec<String>>,
    /// `script` only: the scripts' variables, as pgbench's `-D NAME=VALUE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vars: Option<toml::Table>,
    /// `script` only: `simple` (values written into the text) or `prepared` (server-side
    /// prepared statements); on PostgreSQL also `extended`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_mode: Option<String>,
    /// `script` only: each statement's mean latency per script, as pgbench's `-r`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_statement: Option<bool>,
    /// `script` only: the SHA-256 of each script as it ran, in `scripts`' order (recorded
    /// when the study is read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub script_sha256: Vec<String>,
    /// `replay` only: the captured log, a path relative to the study file (recorded as the
    /// absolute path it named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// `replay` only: `recorded` (the recorded gaps, divided by `speed`) or `fast`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<String>,
    /// `replay` only, with `pace = "recorded"`: how many times faster than recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
    /// `replay` only: the SHA-256 of the log as it was read (recorded when the study is read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_sha256: Option<String>,
}

impl WorkloadStep {
    pub fn label(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| self.workload.trim_start_matches("oltp_").to_string())
    }

    /// The label of the cells of one of the entry's own steps (an Insert Benchmark step:
    /// "l.i1", "qr100"): the step's name, after the entry's name when it has one.
    pub fn sub_label(&self, step: &str) -> String {
        match &self.name {
            Some(n) => format!("{n} {step}"),
            None => step.to_string(),
        }
    }
}
