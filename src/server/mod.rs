//! Stage 1: servers, their processes only. Sandboxes of any MySQL-family binary tree (the
//! system's mariadbd by default) or PostgreSQL tree: binaries, options, datadirs, start and
//! stop by pid, who may reach them. Everything that speaks to a server takes an endpoint
//! (`connection::Endpoint`, `connection::PgEndpoint`) from here.

pub mod access;
pub mod account;
pub mod basedir;
pub mod by_name;
pub mod datadir;
pub mod errorlog;
pub mod fetch;
pub mod home;
pub mod options;
pub mod port;
pub mod postgres;
pub mod presets;
pub mod process;
pub mod registry;
pub mod releases;
pub mod sandbox;
pub mod sandbox_state;

pub use basedir::{Binaries, Flavour};
pub use home::Home;
pub use options::ServerOption;
pub use sandbox::{Sandbox, SandboxSpec, SandboxState};
