//! Stage 1: servers, their processes only, whatever their engine: binaries as data, options,
//! datadirs (cached and copied), sandboxes started and stopped by pid on free ports, who may
//! reach them, the fetch cache. What to run and how is decided by engines/ and handed in
//! (a [`Launcher`]); nothing here asks which engine a server is. Everything that speaks to a
//! server takes an endpoint (`connection::Endpoint`, `connection::PgEndpoint`) from here.

pub mod access;
pub mod account;
pub mod binaries;
pub mod datadir;
pub mod errorlog;
pub mod fetch;
pub mod home;
pub mod launcher;
pub mod lock;
pub mod options;
pub mod port;
pub mod process;
pub mod registry;
pub mod sandbox;
pub mod sandbox_state;

pub use binaries::{Binaries, Flavour};
pub use home::Home;
pub use launcher::{Launcher, ReadBack};
pub use options::ServerOption;
pub use sandbox::{Sandbox, SandboxSpec, SandboxState};
