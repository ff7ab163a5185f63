//! The client side of a connection: where a server is reached and how, for every stage that
//! speaks to a server (workloads, the driver, the Insert Benchmark, studies, probes).
//! server/ starts and stops processes and hands out endpoints; it does not connect for others.
//!
//! One module per protocol: `mysql` (MySQL and MariaDB) and `postgres`, with the same shape
//! (describe, connect with the user's mistakes explained, server_version); passwords are
//! handled the same way for both.
//!
//! What differs between the servers' SQL is answered here too, so that no other stage
//! asks which engine it speaks to: the [`Dialect`] of a connection or endpoint, what a
//! failed statement means ([`SessionError::failure`]), and the facts and steps written
//! differently for each (status counters, a database's size, creating a database).

pub mod admin;
mod databases;
pub mod dialect;
pub mod failure;
pub mod mysql;
pub mod postgres;
mod rows;
pub mod secrets;
mod server_facts;
pub mod session;
pub mod wire;

pub use self::mysql::{Endpoint, Engine};
pub use self::postgres::PgEndpoint;
pub use admin::{AdminConn, TextRows};
pub use dialect::{Dialect, KeyWidth, NumberedKey};
pub use failure::Failure;
pub use rows::Rows;
pub use secrets::{password_from_file, redact_password};
pub use session::{Prepared, Session, SessionError};

/// Whether a connection's IO error is its time running out (a read bound by a timeout ends
/// with `WouldBlock` on Linux), not a refusal.
fn timed_out(io: &std::io::Error) -> bool {
    matches!(
        io.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// A server that took the connection but did not answer in time: busy or stuck, which is the
/// host's state, not the user's mistake.
fn no_answer(at: &str, io: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "the server at {at} did not answer within the connection's time limit ({io}): it is \
         busy (many clients connecting at once on few cores) or stuck"
    )
}
