pub mod oltp;
use super::super::server::Endpoint;
pub struct Options;
pub fn kind(w: &Step) -> bool { w.is_insert_benchmark() }
