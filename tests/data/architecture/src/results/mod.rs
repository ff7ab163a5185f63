//! Doc comment naming crate::report::Table must not count.
use crate::error::usage;
use crate::study::Study;

/* A block comment /* nested */ naming crate::server::Sandbox must not count. */
// A line comment naming crate::driver::Run must not count.

pub(crate) fn share<'a>(name: &'a str) -> f64 {
    let quote = '"';
    let msg = "crate::driver::Fake in a string must not count";
    let raw = r#"crate::probes::Quoted "inside" a raw string"#;
    let escaped = "a \"crate::profile::X\" in an escaped string";
    crate::ibench::TARGET_SHARE * crate::stats::median(&[1.0])
}
