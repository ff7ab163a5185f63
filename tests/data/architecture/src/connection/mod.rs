use crate::error::Error;
use crate::server::Endpoint;
// The client's protocols may ask which engine they speak to.
pub fn is_pg(e: Engine) -> bool { matches!(e, Engine::Postgres) }
