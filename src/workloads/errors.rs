//! Sorting a failed statement into what the driver does next (docs/sysbench-compat.md#errors-retries-and-reconnects): retry the event,
//! reconnect, or stop the run. Shared by every workload, on either protocol; which errors
//! are which is the connection's to say (`failure` on a [`SessionError`]).

use super::EventError;
use crate::connection::{Failure, SessionError};

/// Classify `err`, raised by `statement` (its SQL text, named in fatal messages).
pub fn classify_error(err: SessionError, statement: &str) -> EventError {
    match err.failure() {
        Failure::Retryable { code, message } => EventError::Retryable { code, message },
        Failure::Statement => EventError::Fatal(
            anyhow::Error::new(err).context(format!("statement `{}` failed", one_line(statement))),
        ),
        Failure::ConnectionLost => {
            EventError::ConnectionLost(format!("{err} (statement `{}`)", one_line(statement)))
        }
    }
}

/// Statement text for a message: on one line, and cut short when it is long (a bulk
/// INSERT is half a megabyte).
fn one_line(statement: &str) -> String {
    const MAX: usize = 200;
    let flat = statement.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.len() <= MAX {
        return flat;
    }
    let mut cut = MAX;
    while !flat.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &flat[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::postgres::PgError;
    use crate::connection::wire::WireError;

    fn server_error(code: u16) -> SessionError {
        WireError::Server {
            state: "HY000".into(),
            message: format!("error {code}"),
            code,
        }
        .into()
    }

    #[test]
    fn retryable_errors_keep_their_code_and_message() {
        match classify_error(server_error(1213), "UPDATE t SET k=k+1 WHERE id=?") {
            EventError::Retryable { code, message } => {
                assert_eq!((code.as_str(), message.as_str()), ("1213", "error 1213"))
            }
            other => panic!("{other:?}"),
        }
        let pg: SessionError = PgError::Server {
            severity: "ERROR".into(),
            code: "40001".into(),
            message: "could not serialize".into(),
        }
        .into();
        assert!(matches!(
            classify_error(pg, "UPDATE t SET k=k+1 WHERE id=$1"),
            EventError::Retryable { code, .. } if code == "40001"
        ));
    }

    #[test]
    fn lost_connections_reconnect_and_name_the_statement() {
        match classify_error(server_error(2013), "SELECT\n 1") {
            EventError::ConnectionLost(msg) => {
                assert!(msg.ends_with("(statement `SELECT 1`)"), "{msg}")
            }
            other => panic!("{other:?}"),
        }
        let io: SessionError = PgError::Io(std::io::ErrorKind::UnexpectedEof.into()).into();
        assert!(matches!(
            classify_error(io, "SELECT 1"),
            EventError::ConnectionLost(_)
        ));
    }

    #[test]
    fn other_errors_are_fatal_and_name_the_statement() {
        match classify_error(server_error(1062), "INSERT INTO sbtest1 (id) VALUES (?)") {
            EventError::Fatal(e) => {
                let text = format!("{e:#}");
                assert!(
                    text.contains("INSERT INTO sbtest1 (id) VALUES (?)"),
                    "{text}"
                );
                assert!(text.contains("1062"), "{text}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn long_statements_are_shortened() {
        let long = format!("INSERT INTO t VALUES {}", "(1),".repeat(1000));
        assert!(one_line(&long).chars().count() <= 201);
        assert_eq!(one_line("SELECT\n  1"), "SELECT 1");
    }
}
