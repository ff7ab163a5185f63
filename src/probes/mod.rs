//! Probes that run alongside the driver: per-process resources of server and client from
//! /proc (a whole process tree for servers that work in many processes), whole-machine CPU
//! (to detect foreign load and saturation), server status deltas, PFS state; and the host's
//! own: the CPUs psbench may use and where threads run, how long a wake-up takes.

pub mod cpus;
pub mod device;
pub mod host;
pub mod machine;
pub mod pfs;
pub mod process;
pub mod process_tree;
pub mod status;
pub mod wakeup;

pub use crate::connection::AdminConn;
pub use machine::MachineSample;
pub use pfs::{InstrumentClass, PfsState};
pub use process::ProcSample;
pub use status::StatusSnapshot;
