//! What an expression may touch while it is evaluated.

use super::prng::PgPrng;
use super::value::Value;
use std::collections::HashMap;

/// What an expression may touch: the client's variables and generator, and where debug()
/// writes (with the script and command it names).
pub struct Ctx<'a> {
    pub vars: &'a HashMap<String, Value>,
    pub rs: &'a mut PgPrng,
    pub debug: &'a mut dyn std::io::Write,
    pub script: usize,
    pub command: usize,
}
