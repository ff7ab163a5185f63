//! What a MariaDB or MySQL error log says when start-up fails.

use crate::server::errorlog::{tail, StartFailure};

/// Why start-up failed, from the error log since the attempt began.
pub fn diagnose(log: &str) -> StartFailure {
    // A `loose_` option the server lacks is only a warning (MySQL 5.7 on `loose_mysqlx`).
    for line in log.lines().filter(|l| !l.contains("[Warning]")) {
        for marker in [
            "unknown variable '",
            "unknown option '",
            "ambiguous option '",
        ] {
            if let Some(pos) = line.find(marker) {
                let rest = &line[pos + marker.len()..];
                let option = rest.split('\'').next().unwrap_or(rest);
                let option = option.trim_start_matches("--").to_string();
                return StartFailure::RejectedOption {
                    option,
                    line: line.trim().to_string(),
                };
            }
        }
    }
    if log.contains("Address already in use") || log.contains("Bind on TCP/IP port") {
        return StartFailure::PortInUse;
    }
    let errors: Vec<&str> = log.lines().filter(|l| l.contains("[ERROR]")).collect();
    let lines = if errors.is_empty() {
        tail(log, 8)
    } else {
        errors[errors.len().saturating_sub(8)..].join("\n")
    };
    StartFailure::Other { lines }
}

#[cfg(test)]
// A test that fails on any other value needs no list of them.
#[allow(clippy::wildcard_enum_match_arm)]
mod tests {
    use super::*;

    #[test]
    fn a_loose_option_warned_about_is_not_the_cause() {
        let log = "2026-11-25T10:18:33.554889Z 0 [Warning] unknown variable 'loose_mysqlx=OFF'\n\
                   2026-11-25T10:18:33.555000Z 0 [ERROR] unknown variable 'innodb_bufer_pool_size=1G'\n\
                   2026-11-25T10:18:33.556000Z 0 [ERROR] Aborting\n";
        match diagnose(log) {
            StartFailure::RejectedOption { option, .. } => {
                assert_eq!(option, "innodb_bufer_pool_size=1G")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn finds_the_rejected_option() {
        let log = "2026-11-22  6:40:01 0 [Note] Starting MariaDB\n\
                   2026-11-22  6:40:01 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'no_such_option=1'\n\
                   2026-11-22  6:40:01 0 [ERROR] Aborting\n";
        match diagnose(log) {
            StartFailure::RejectedOption { option, line } => {
                assert_eq!(option, "no_such_option=1");
                assert!(line.contains("[ERROR] /usr/sbin/mariadbd: unknown variable"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn finds_a_taken_port_and_other_errors() {
        assert_eq!(
            diagnose("[ERROR] Can't start server: Bind on TCP/IP port. Got error: 98: Address already in use"),
            StartFailure::PortInUse
        );
        match diagnose("[Note] a\n[ERROR] InnoDB: corrupt\n[ERROR] Aborting\n") {
            StartFailure::Other { lines } => assert!(lines.contains("InnoDB: corrupt")),
            other => panic!("{other:?}"),
        }
    }
}
