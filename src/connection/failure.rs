//! What a failed statement means for the client, in either protocol's terms: the error may
//! pass if the transaction is run again, the connection is gone, or the statement itself
//! failed (docs/sysbench-compat.md#errors-retries-and-reconnects).

use super::postgres::PgError;
use super::session::SessionError;
use super::wire::WireError;

/// MySQL family: deadlock, lock-wait timeout, "record has changed": sysbench's default
/// ignore list.
pub const RETRYABLE_CODES: &[u16] = &[1213, 1205, 1020];

/// PostgreSQL: deadlock, unique violation, serialization failure — the SQLSTATEs sysbench's
/// pgsql driver ignores (it rolls back and re-runs the event).
pub const RETRYABLE_SQLSTATES: &[&str] = &["40P01", "23505", "40001"];

/// MySQL family: client and server codes that mean the connection is gone: server gone
/// away (2006), lost during query (2013), TCP error (2011), lost extended (2055),
/// connection killed (1927), server shutting down (1053).
pub const CONNECTION_LOST_CODES: &[u16] = &[2006, 2013, 2011, 2055, 1927, 1053];

/// MySQL family's answer to a statement that cannot be prepared.
const ER_UNSUPPORTED_PS: u16 = 1295;

/// How a failed statement is dealt with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A conflict with another transaction: running the transaction again may succeed.
    /// `code`: MySQL's error number or PostgreSQL's SQLSTATE.
    Retryable { code: String, message: String },
    /// The connection is gone (the server ended it, the socket failed, or the client can no
    /// longer follow the conversation): only a new connection can go on.
    ConnectionLost,
    /// The statement failed on a connection that is still usable.
    Statement,
}

impl SessionError {
    /// What this error means for the client.
    pub fn failure(&self) -> Failure {
        match self {
            SessionError::MySql(e) => mysql_failure(e),
            SessionError::Pg(e) => pg_failure(e),
        }
    }

    /// Whether the server refused to prepare the statement because of its kind (it runs
    /// as text instead, as sysbench does).
    pub fn cannot_be_prepared(&self) -> bool {
        self.mysql_code() == Some(ER_UNSUPPORTED_PS)
    }
}

fn mysql_failure(err: &WireError) -> Failure {
    match err {
        WireError::Server { code, message, .. } if RETRYABLE_CODES.contains(code) => {
            Failure::Retryable {
                code: code.to_string(),
                message: message.clone(),
            }
        }
        WireError::Server { code, .. } if !CONNECTION_LOST_CODES.contains(code) => {
            Failure::Statement
        }
        _ => Failure::ConnectionLost,
    }
}

fn pg_failure(err: &PgError) -> Failure {
    match err {
        PgError::Server { code, message, .. } if RETRYABLE_SQLSTATES.contains(&code.as_str()) => {
            Failure::Retryable {
                code: code.clone(),
                message: message.clone(),
            }
        }
        // FATAL and PANIC end the session (an administrator's termination, a shutdown).
        PgError::Server { severity, .. } if severity != "FATAL" && severity != "PANIC" => {
            Failure::Statement
        }
        _ => Failure::ConnectionLost,
    }
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

    fn pg(severity: &str, code: &str) -> SessionError {
        SessionError::Pg(PgError::Server {
            severity: severity.into(),
            code: code.into(),
            message: format!("error {code}"),
        })
    }

    #[test]
    fn deadlocks_and_lock_waits_are_retryable() {
        for code in [1213, 1205, 1020] {
            assert_eq!(
                server_error(code).failure(),
                Failure::Retryable {
                    code: code.to_string(),
                    message: format!("error {code}")
                }
            );
        }
    }

    #[test]
    fn lost_connections_need_a_new_one() {
        assert_eq!(server_error(2013).failure(), Failure::ConnectionLost);
        let io = SessionError::from(WireError::Io(std::io::ErrorKind::BrokenPipe.into()));
        assert_eq!(io.failure(), Failure::ConnectionLost);
        let garbled = SessionError::from(WireError::Protocol("packet out of order".into()));
        assert_eq!(garbled.failure(), Failure::ConnectionLost);
        assert_eq!(server_error(1062).failure(), Failure::Statement);
    }

    #[test]
    fn postgres_errors_as_sysbench_pgsql_sorts_them() {
        for code in ["40P01", "23505", "40001"] {
            assert!(matches!(
                pg("ERROR", code).failure(),
                Failure::Retryable { code: c, .. } if c == code
            ));
        }
        assert_eq!(pg("ERROR", "42P01").failure(), Failure::Statement);
        // pg_terminate_backend: FATAL 57P01 ends the session.
        assert_eq!(pg("FATAL", "57P01").failure(), Failure::ConnectionLost);
        let io = SessionError::from(PgError::Io(std::io::ErrorKind::UnexpectedEof.into()));
        assert_eq!(io.failure(), Failure::ConnectionLost);
    }

    #[test]
    fn only_the_unsupported_kind_of_statement_falls_back_to_text() {
        assert!(server_error(1295).cannot_be_prepared());
        assert!(!server_error(1064).cannot_be_prepared());
        assert!(!pg("ERROR", "42601").cannot_be_prepared());
    }
}
