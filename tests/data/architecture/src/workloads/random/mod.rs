pub struct Zipf;
// Flavour::Postgres in a comment and is_postgres() in a string do not ask, nor do other words.
pub fn keys(s: &Sandbox, conn: &Session, p: PfsFlavour) -> u64 {
    let doc = "conn.is_postgres()";
    let renamed = is_postgres_like(Engine::MySqlish);
    if s.flavour == Flavour::Postgres { 1 }
    else if conn.is_postgres() { 2 }
    else { 0 }
}
