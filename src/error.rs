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

/// Several mistakes found at once (a study file's), one line each; a user mistake (exit 2)
/// whose lines are printed one by one.
#[derive(Debug)]
pub struct Mistakes(pub Vec<String>);

impl fmt::Display for Mistakes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("\n"))
    }
}

impl std::error::Error for Mistakes {}

/// A failure whose verdict the command already printed on standard output (a gate's
/// regressions): exit 1 with no error line repeating it.
#[derive(Debug)]
pub struct AlreadySaid;

impl fmt::Display for AlreadySaid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("failed, as printed above")
    }
}

impl std::error::Error for AlreadySaid {}

/// The error for `lines`: none is no error, one is a [`usage`] error, more are [`Mistakes`].
pub fn mistakes(mut lines: Vec<String>) -> Option<anyhow::Error> {
    match lines.len() {
        0 => None,
        1 => Some(usage(lines.remove(0))),
        _ => Some(anyhow::Error::new(Mistakes(lines))),
    }
}

/// The candidate closest to `word`, if it is close enough to be what was meant: a Jaro-Winkler
/// similarity of at least 0.8, or an edit distance (a swap of two neighbours is one edit) of at most a third of the word's length
/// (one edit in a word of 3 to 5 characters, two in 6 to 8, three beyond). Case is ignored.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let w = word.to_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        let l = c.to_lowercase();
        if l == w {
            return Some(c.to_string());
        }
        let jw = strsim::jaro_winkler(&w, &l);
        let edits = strsim::osa_distance(&w, &l);
        let allowed = (w.chars().count() / 3).min(3);
        if (jw >= 0.8 || edits <= allowed) && best.is_none_or(|(b, _)| jw > b) {
            best = Some((jw, c));
        }
    }
    best.map(|(_, c)| c.to_string())
}

/// "; did you mean `X`?" when one of `candidates` is close to `word`, else "".
pub fn suggestion<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(word, candidates)
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default()
}

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
    err.chain()
        .any(|e| e.is::<UsageError>() || e.is::<Mistakes>())
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

/// The lines to print for an error: none for [`AlreadySaid`], one (see [`one_line`]), or one per mistake of a
/// [`Mistakes`] in its chain, each after the contexts around it.
pub fn lines(err: &anyhow::Error) -> Vec<String> {
    if err.chain().any(|e| e.is::<AlreadySaid>()) {
        return Vec::new();
    }
    let mut outer: Vec<String> = Vec::new();
    for cause in err.chain() {
        if let Some(m) = cause.downcast_ref::<Mistakes>() {
            let prefix: String = outer.iter().map(|p| format!("{p}: ")).collect();
            return m.0.iter().map(|l| format!("{prefix}{l}")).collect();
        }
        outer.push(cause.to_string().replace('\n', " "));
    }
    vec![one_line(err)]
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
    fn several_mistakes_are_a_line_each_and_exit_2() {
        let e = mistakes(vec!["a, line 1: x".into(), "a, line 2: y".into()]).unwrap();
        let e = e.context("loading");
        assert_eq!(exit_code(&e), 2);
        assert_eq!(
            lines(&e),
            ["loading: a, line 1: x", "loading: a, line 2: y"]
        );
        let one = mistakes(vec!["only".into()]).unwrap();
        assert_eq!(
            (lines(&one), exit_code(&one)),
            (vec!["only".to_string()], 2)
        );
        assert!(mistakes(vec![]).is_none());
    }

    #[test]
    fn did_you_mean_finds_a_near_name_and_nothing_far() {
        let keys = ["threads", "rounds", "duration", "warmup", "threshold"];
        assert_eq!(did_you_mean("thread", keys).as_deref(), Some("threads"));
        assert_eq!(did_you_mean("round", keys).as_deref(), Some("rounds"));
        assert_eq!(did_you_mean("duraton", keys).as_deref(), Some("duration"));
        assert_eq!(did_you_mean("Warmup", keys).as_deref(), Some("warmup"));
        assert_eq!(did_you_mean("zebra", keys), None);
        assert_eq!(did_you_mean("x", keys), None);
        let studies = ["pfs-overhead", "pfs-threads", "pg-sweep", "mysql-sweep"];
        assert_eq!(
            did_you_mean("pfs-overhaed", studies).as_deref(),
            Some("pfs-overhead")
        );
        assert_eq!(
            did_you_mean("mysql-swep", studies).as_deref(),
            Some("mysql-sweep")
        );
        assert_eq!(did_you_mean("tpcc", studies), None);
        let scenarios = ["ps_off", "default", "all_on", "pg_off"];
        assert_eq!(did_you_mean("ps_of", scenarios).as_deref(), Some("ps_off"));
        assert_eq!(
            did_you_mean("point_selct", ["point_select", "read_write"]).as_deref(),
            Some("point_select")
        );
        assert_eq!(did_you_mean("a", std::iter::empty()), None);
        assert_eq!(suggestion("thread", keys), "; did you mean `threads`?");
        assert_eq!(suggestion("zebra", keys), "");
    }

    #[test]
    fn other_errors_exit_1() {
        let e = anyhow::anyhow!("server died").context("cell 3");
        assert_eq!(exit_code(&e), 1);
    }
}
