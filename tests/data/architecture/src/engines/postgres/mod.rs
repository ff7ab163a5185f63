use super::Shared;
pub struct Cluster;
pub fn check(conn: &Session) -> bool { conn.is_postgres() }
