//! psbench's own MySQL-protocol client for the measured statements (docs/sysbench-compat.md#the-client).
//!
//! The client shares the CPU with the server it measures, so its hot path does only what
//! a benchmark needs: one reusable buffer each way, parameter types sent once per
//! statement, result rows counted and skipped without being decoded, and no more than a
//! few kilobytes per connection. Dataset loading, probes and setup keep the `mysql` crate.

mod binary;
mod decode;
mod error;
mod handshake;
mod packets;
mod session;

pub use binary::Value;
pub use error::WireError;
pub use handshake::Login;
pub use session::{Outcome, Prepared, Session};
