//! Where and with what a result was measured: the host, the tool, each variant's server.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cpus: u32,
    pub memory_mb: u64,
    /// Whether the CPU says it runs under a hypervisor (its `hypervisor` flag); absent in
    /// documents written before psbench recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtualised: Option<bool>,
}

/// What a variant really ran: binary, version, the options passed, the server's effective
/// variables and performance_schema set, as read after start.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VariantProvenance {
    pub server_binary: String,
    /// SHA-256 of the server binary: which exact build ran.
    #[serde(default)]
    pub server_sha256: String,
    pub server_version: String,
    pub options: Vec<ServerOption>,
    pub sql: Vec<String>,
    pub variables: BTreeMap<String, String>,
    /// performance_schema as the server showed it; absent for servers without one
    /// (PostgreSQL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pfs: Option<PfsState>,
    /// The server build's identity (absent in documents written before psbench recorded it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<super::build::ServerBuild>,
    /// Where its server and psbench's client ran, read back, when the study placed them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<super::host_probe::Placement>,
    /// The variant's own configuration file, as read for this server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_file: Option<ConfigFileRecord>,
}

/// A variant's my.cnf or postgresql.conf: which file (by content) and which of its lines did
/// not set what they say, with why (`a.cnf:3 port: the sandbox's own`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigFileRecord {
    pub path: String,
    pub sha256: String,
    /// Settings passed to the server from the file (includes too).
    pub settings: u32,
    pub overridden: Vec<String>,
}

/// One server option, as given on the command line or in a study (`innodb_buffer_pool_size=256M`,
/// `skip-name-resolve`). Dashes and underscores are interchangeable, as for the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerOption {
    pub key: String,
    pub value: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PfsState {
    pub enabled: bool,
    pub instruments: u64,
    pub instruments_enabled: u64,
    pub instruments_timed: u64,
    /// Names of the consumers that are ON, sorted.
    pub consumers_on: Vec<String>,
    /// `performance_schema.memory` from SHOW ENGINE PERFORMANCE_SCHEMA STATUS, bytes.
    pub memory_bytes: u64,
    /// The server has no performance_schema at all (built without it), checked on it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compiled_out: bool,
    /// `setup_instruments` per class (`wait/synch/mutex`, `stage`, …), as read back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<InstrumentClass>,
}

/// One class of instruments: how many there are, how many enabled and how many timed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstrumentClass {
    pub class: String,
    pub instruments: u64,
    pub enabled: u64,
    pub timed: u64,
}
