//! Connections for the measured run. They must issue nothing but the workload's statements:
//! by default the `mysql` crate runs `SELECT @@max_allowed_packet` on every connect, which
//! would add one Com_select per connection to the server's counters (sysbench adds none).

use crate::server::Endpoint;
use anyhow::Result;

/// The client-side packet limit (the protocol's maximum); the server enforces its own.
const MAX_ALLOWED_PACKET: usize = 1 << 30;

pub fn connect(endpoint: &Endpoint) -> Result<mysql::Conn> {
    let opts =
        mysql::OptsBuilder::from_opts(endpoint.opts()).max_allowed_packet(Some(MAX_ALLOWED_PACKET));
    match mysql::Conn::new(opts) {
        Ok(conn) => Ok(conn),
        // Connect the usual way to get the endpoint's explanation of what went wrong.
        Err(e) => endpoint.connect().and(Err(anyhow::Error::new(e))),
    }
}
