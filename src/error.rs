//! Error kinds and exit codes.
//!
//! Everything is an `anyhow::Error` with context; a mistake of the user (bad option,
//! bad file, unreachable server) carries a [`UsageError`] somewhere in its chain, which
//! turns the exit code into 2. Anything else that fails a run exits with 1.

use std::fmt;

/// Exit code for a run that failed.
pub const EXIT_FAILED: i32 = 1;
/// Exit code for bad usage or input (sysbench and pgbench conventions).
pub const EXIT_USAGE: i32 = 2;

/// A mistake in what the user asked for; the message says what and, where it can, how to fix it.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Build an `anyhow::Error` that exits with code 2.
pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(msg.into()))
}

/// `bail!` for user mistakes.
#[macro_export]
macro_rules! usage_bail {
    ($($arg:tt)*) => { return Err($crate::error::usage(format!($($arg)*))) };
}

/// True when the error, or anything in its chain, is a user mistake.
pub fn is_usage(err: &anyhow::Error) -> bool {
    err.chain().any(|e| e.is::<UsageError>())
}

/// The exit code for an error.
pub fn exit_code(err: &anyhow::Error) -> i32 {
    if is_usage(err) {
        EXIT_USAGE
    } else {
        EXIT_FAILED
    }
}

/// One line: the outermost context first, then each cause, joined by ": ".
pub fn one_line(err: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.chain() {
        let s = cause.to_string().replace('\n', " ");
        // Skip a cause whose text is already contained in the previous part.
        if parts.last().is_some_and(|p| p.contains(&s)) {
            continue;
        }
        parts.push(s);
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn usage_anywhere_in_chain_exits_2() {
        let e: anyhow::Result<()> = Err(usage("unknown workload 'x'"));
        let e = e.context("running the study").unwrap_err();
        assert_eq!(exit_code(&e), 2);
        assert_eq!(one_line(&e), "running the study: unknown workload 'x'");
    }

    #[test]
    fn other_errors_exit_1() {
        let e = anyhow::anyhow!("server died").context("cell 3");
        assert_eq!(exit_code(&e), 1);
    }
}
