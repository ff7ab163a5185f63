//! Sorting a failed statement into what the driver does next (docs/sysbench-compat.md#errors-retries-and-reconnects): retry the event,
//! reconnect, or stop the run. Shared by every workload, on either protocol.

use super::EventError;
use crate::connection::postgres::PgError;
use crate::connection::wire::WireError;
use crate::connection::SessionError;

/// Deadlock, lock-wait timeout, "record has changed": sysbench's default ignore list.
pub const RETRYABLE_CODES: &[u16] = &[1213, 1205, 1020];

/// PostgreSQL: deadlock, unique violation, serialization failure — the SQLSTATEs sysbench's
/// pgsql driver ignores (it rolls back and re-runs the event; so does psbench's driver).
pub const RETRYABLE_SQLSTATES: &[&str] = &["40P01", "23505", "40001"];

/// Client and server codes that mean the connection is gone: server gone away (2006),
/// lost during query (2013), TCP error (2011), lost extended (2055), connection killed
/// (1927), server shutting down (1053).
pub const CONNECTION_LOST_CODES: &[u16] = &[2006, 2013, 2011, 2055, 1927, 1053];

/// Classify `err`, raised by `statement` (its SQL text, named in fatal messages).
pub fn classify_error(err: SessionError, statement: &str) -> EventError {
    match err {
        SessionError::MySql(e) => classify_mysql(e, statement),
        SessionError::Pg(e) => classify_pg(e, statement),
    }
}

fn classify_pg(err: PgError, statement: &str) -> EventError {
    match &err {
        PgError::Server { code, message, .. } if RETRYABLE_SQLSTATES.contains(&code.as_str()) => {
            EventError::Retryable {
                code: code.clone(),
                message: message.clone(),
            }
        }
        // FATAL and PANIC end the session (an administrator's termination, a shutdown).
        PgError::Server { severity, .. } if severity != "FATAL" && severity != "PANIC" => {
            EventError::Fatal(
                anyhow::Error::new(err)
                    .context(format!("statement `{}` failed", one_line(statement))),
            )
        }
        _ => EventError::ConnectionLost(format!("{err} (statement `{}`)", one_line(statement))),
    }
}

fn classify_mysql(err: WireError, statement: &str) -> EventError {
    match &err {
        WireError::Server { code, message, .. } if RETRYABLE_CODES.contains(code) => {
            EventError::Retryable {
                code: code.to_string(),
                message: message.clone(),
            }
        }
        WireError::Server { code, .. } if !CONNECTION_LOST_CODES.contains(code) => {
            EventError::Fatal(
                anyhow::Error::new(err)
                    .context(format!("statement `{}` failed", one_line(statement))),
            )
        }
        // The server said the connection is going, the socket failed, or the client can
        // no longer follow the conversation: in every case a new connection is needed.
        _ => EventError::ConnectionLost(format!("{err} (statement `{}`)", one_line(statement))),
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

    fn server_error(code: u16) -> SessionError {
        SessionError::MySql(WireError::Server {
            state: "HY000".into(),
            message: format!("error {code}"),
            code,
        })
    }

    #[test]
    fn deadlocks_and_lock_waits_are_retryable() {
        for code in [1213, 1205, 1020] {
            match classify_error(server_error(code), "UPDATE t SET k=k+1 WHERE id=?") {
                EventError::Retryable { code: c, .. } => assert_eq!(c, code.to_string()),
                other => panic!("{code}: {other:?}"),
            }
        }
    }

    #[test]
    fn lost_connections_reconnect() {
        assert!(matches!(
            classify_error(server_error(2013), "SELECT 1"),
            EventError::ConnectionLost(_)
        ));
        let io = WireError::Io(std::io::Error::from(std::io::ErrorKind::BrokenPipe)).into();
        assert!(matches!(
            classify_error(io, "SELECT 1"),
            EventError::ConnectionLost(_)
        ));
        let garbled = WireError::Protocol("packet out of order".into()).into();
        assert!(matches!(
            classify_error(garbled, "SELECT 1"),
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

    fn pg(severity: &str, code: &str) -> SessionError {
        SessionError::Pg(PgError::Server {
            severity: severity.into(),
            code: code.into(),
            message: format!("error {code}"),
        })
    }

    #[test]
    fn postgres_errors_as_sysbench_pgsql_sorts_them() {
        for code in ["40P01", "23505", "40001"] {
            match classify_error(pg("ERROR", code), "UPDATE t SET k=k+1 WHERE id=$1") {
                EventError::Retryable { code: c, .. } => assert_eq!(c, code),
                other => panic!("{code}: {other:?}"),
            }
        }
        assert!(matches!(
            classify_error(pg("ERROR", "42P01"), "SELECT 1"),
            EventError::Fatal(_)
        ));
        // pg_terminate_backend: FATAL 57P01 ends the session.
        assert!(matches!(
            classify_error(pg("FATAL", "57P01"), "SELECT 1"),
            EventError::ConnectionLost(_)
        ));
        let io = PgError::Io(std::io::Error::from(std::io::ErrorKind::UnexpectedEof)).into();
        assert!(matches!(
            classify_error(io, "SELECT 1"),
            EventError::ConnectionLost(_)
        ));
    }

    #[test]
    fn long_statements_are_shortened() {
        let long = format!("INSERT INTO t VALUES {}", "(1),".repeat(1000));
        assert!(one_line(&long).chars().count() <= 201);
        assert_eq!(one_line("SELECT\n  1"), "SELECT 1");
    }
}
