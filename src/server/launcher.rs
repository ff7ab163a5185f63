//! What an engine decides about running its server in a sandbox, handed to the sandbox as one
//! value: engines/ says what to run, with which files and arguments, how to tell it is up and
//! what went wrong, how to secure it and read back its settings, and how to stop it; server/
//! runs the processes, ports, directories and accounts. server/ never asks which engine it is.

use super::access::Access;
use super::datadir::Initialiser;
use super::errorlog::StartFailure;
use super::options::ServerOption;
use super::sandbox_state::SandboxState;
use super::Binaries;
use crate::connection;
use anyhow::Result;
use nix::sys::signal::Signal;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the server showed right after start.
pub struct ReadBack {
    /// Its variables or settings (name → value).
    pub variables: BTreeMap<String, String>,
    /// The options that did not take effect: (option, what the server reports).
    pub not_applied: Vec<(ServerOption, String)>,
}

/// How a sandbox runs one engine's server.
pub trait Launcher: Sync {
    /// `MariaDB 10.11.19`, `PostgreSQL 15.18`.
    fn label(&self, bin: &Binaries) -> String;
    /// The account clients administer the server as (`root`, `postgres`).
    fn superuser(&self) -> &'static str;
    /// The protocol the server speaks.
    fn protocol(&self) -> connection::Engine;
    /// How the server is asked to stop.
    fn stop_signal(&self) -> Signal;
    /// The socket under the sandbox's `run` directory as clients name it, and the longest
    /// socket file path the server may create there (checked against the 107-byte limit).
    fn socket(&self, run: &Path) -> (PathBuf, PathBuf);
    /// Where the server's log is (under `run`).
    fn error_log(&self, run: &Path) -> PathBuf;
    /// Options the sandbox sets itself through the engine, which a variant may not.
    fn reserved(&self) -> &'static [&'static str];
    /// The engine's small-machine defaults for this build, overridden by the variant's options.
    fn defaults(&self, bin: &Binaries) -> Vec<ServerOption>;
    /// How a fresh datadir is made and recognised.
    fn initialiser(&self) -> &dyn Initialiser;
    /// The options among `options` that shape a datadir at creation.
    fn init_options(&self, options: &[ServerOption]) -> Vec<ServerOption>;
    /// Files the server reads from the sandbox, written before every start.
    fn prepare(&self, state: &SandboxState) -> Result<()>;
    /// This start's password where clients (and the server's init file) find it.
    fn write_access(&self, access: &Access, state: &SandboxState) -> Result<()>;
    /// The server's arguments: the sandbox's own settings, then `state.options`.
    fn args(&self, state: &SandboxState, access: &Access) -> Vec<String>;
    /// Whether the server accepts connections.
    fn is_ready(&self, state: &SandboxState) -> bool;
    /// Why start-up failed, from the log written since the attempt began.
    fn diagnose(&self, log: &str) -> StartFailure;
    /// Once it accepts connections: no account reachable over TCP without this start's
    /// password, and what the server applied.
    fn secure_and_read_back(&self, state: &SandboxState, access: &Access) -> Result<ReadBack>;
}
