//! Right after a PostgreSQL sandbox accepts connections, over its socket: give the
//! superuser this start's password (TCP logins need a SCRAM password: a role without one
//! cannot log in over TCP at all), give it to any other role that could log in with an older
//! one, and read back the effective settings.

use super::settings::Setting;
use super::SUPERUSER;
use crate::connection::postgres::PgSession;
use anyhow::{Context, Result};
use postgres_protocol::escape::{escape_identifier, escape_literal};
use std::collections::BTreeMap;

/// Set `password` on every role that can log in with a password. The server receives a SCRAM
/// verifier made here, never the password itself, so a statement log cannot leak it.
pub fn set_passwords(admin: &mut PgSession, password: &str) -> Result<()> {
    // This session's statements stay out of the log whatever the variant logs (a custom
    // setting may be SET whether or not auto_explain is loaded).
    admin
        .run(
            "SET log_statement = 'none'; SET log_min_duration_statement = -1; \
             SET auto_explain.log_min_duration = -1",
        )
        .context("turning off statement logging for the admin session")?;
    let verifier = postgres_protocol::password::scram_sha_256(password.as_bytes());
    let roles = admin
        .query(&format!(
            "SELECT rolname FROM pg_authid WHERE rolcanlogin AND \
             (rolname = {} OR rolpassword IS NOT NULL)",
            escape_literal(SUPERUSER)
        ))
        .context("listing the roles that can log in")?;
    for row in roles {
        let Some(Some(role)) = row.into_iter().next() else {
            continue;
        };
        admin
            .run(&format!(
                "ALTER ROLE {} PASSWORD {}",
                escape_identifier(&role),
                escape_literal(&verifier)
            ))
            .with_context(|| format!("setting the password of role '{role}'"))?;
    }
    Ok(())
}

/// pg_settings as name → the server's effective value (`reset_val`: what this session's own
/// SETs do not change), unit and type.
pub fn read_settings(admin: &mut PgSession) -> Result<BTreeMap<String, Setting>> {
    let rows = admin
        .query("SELECT name, reset_val, unit, vartype FROM pg_settings")
        .context("reading pg_settings")?;
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            let mut it = r.into_iter();
            let name = it.next()??;
            let setting = it.next()?.unwrap_or_default();
            let unit = it.next()?;
            let vartype = it.next()?.unwrap_or_default();
            Some((
                name,
                Setting {
                    setting,
                    unit,
                    vartype,
                },
            ))
        })
        .collect())
}
