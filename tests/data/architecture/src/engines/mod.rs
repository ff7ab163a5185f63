// Inside engines, asking which engine is the job.
pub mod mysql;
pub mod postgres;
use crate::server::{Endpoint, Flavour};
pub struct Shared;
pub fn family(f: Flavour) -> &'static str {
    if f == Flavour::Postgres { "postgres" } else { "mysql" }
}
