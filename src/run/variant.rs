//! A variant's sandbox in a study: its name, unique per study run, and its removal. Starting
//! it — scenario, options, datadir copy, verification — is engines::variant's.

pub use crate::engines::variant::{connection_options, options, start, Launch};
use crate::server::Home;
use std::path::PathBuf;

/// A sandbox name from the study's process and the variant (letters, digits, `-`, `_`, `.`).
pub fn sandbox_name(prefix: &str, variant: &str) -> String {
    let clean: String = variant
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(28)
        .collect();
    format!("{prefix}-{clean}")
}

/// Remove a stopped study sandbox's directory (its datadir copy is large).
pub fn discard(home: &Home, name: &str) {
    let dir: PathBuf = home.sandbox_dir(name);
    let _ = std::fs::remove_dir_all(dir);
}
