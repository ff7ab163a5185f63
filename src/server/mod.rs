//! Stage 1: servers. Sandboxes of any MySQL-family binary tree (the system's mariadbd by
//! default), or an external server reached through an [`Endpoint`].

pub mod access;
pub mod account;
pub mod basedir;
pub mod datadir;
pub mod endpoint;
pub mod errorlog;
pub mod fetch;
pub mod home;
pub mod options;
pub mod port;
pub mod process;
pub mod registry;
pub mod sandbox;

pub use basedir::{Binaries, Flavour};
pub use endpoint::Endpoint;
pub use home::Home;
pub use options::ServerOption;
pub use sandbox::{Sandbox, SandboxSpec, SandboxState};
