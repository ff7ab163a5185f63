//! Reading the server's error log: the part written since a given start, the lines that
//! explain a failure, and the typical causes (a rejected option, a taken port), as each
//! engine reads them from its own log (engines/).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Current size of the log, to read only what a new start appends.
pub fn offset(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// The text written since `from`.
pub fn since(path: &Path, from: u64) -> String {
    let mut s = String::new();
    if let Ok(mut f) = std::fs::File::open(path) {
        let _ = f.seek(SeekFrom::Start(from));
        let mut buf = Vec::new();
        let _ = f.read_to_end(&mut buf);
        s = String::from_utf8_lossy(&buf).into_owned();
    }
    s
}

/// The last `n` lines, for quoting in an error message.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Why the server refused to start, as the server said it; the best single line first.
#[derive(Debug, PartialEq, Eq)]
pub enum StartFailure {
    /// `unknown variable 'no_such_option=1'` / `unknown option '--foo'`: the user's option.
    RejectedOption { option: String, line: String },
    /// Another process took our port between choosing it and binding it.
    PortInUse,
    /// Anything else: the `[ERROR]` lines (or the tail of the log when there are none).
    Other { lines: String },
}
