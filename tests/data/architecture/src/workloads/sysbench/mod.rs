pub mod oltp;
use super::super::server::Endpoint;
pub struct Options;
