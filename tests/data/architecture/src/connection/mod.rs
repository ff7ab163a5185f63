use crate::error::Error;
use crate::server::Endpoint;
