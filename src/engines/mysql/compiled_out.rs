//! A MySQL-family server without performance_schema compiled in: MariaDB built without its
//! plugin (`PLUGIN_PERFSCHEMA=NO`, so `HAVE_PSI_INTERFACE` is undefined and every
//! instrumentation call is left out of the binary). Told before it starts from the server's
//! own option list, checked on the running server, and its options fitted: such a server
//! refuses `--performance-schema=OFF` as an unknown option, though it is what it already is.

use crate::error::usage;
use crate::server::{Binaries, ServerOption};
use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// Whether `bin`'s server has performance_schema compiled in: its `--verbose --help` lists a
/// `--performance-schema` option. Asked once per binary; a server that cannot print its help
/// counts as having it (its start then says what is wrong).
pub fn has_pfs(bin: &Binaries) -> bool {
    static SEEN: OnceLock<Mutex<BTreeMap<PathBuf, bool>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(known) = seen.lock().ok().and_then(|m| m.get(&bin.server).copied()) {
        return known;
    }
    let mut cmd = bin.command(&bin.server);
    cmd.args(["--no-defaults", "--verbose", "--help"]);
    if let Some(base) = &bin.basedir {
        cmd.arg(format!("--basedir={}", base.display()));
    }
    let has = match cmd.stderr(std::process::Stdio::null()).output() {
        Ok(o) if !o.stdout.is_empty() => lists_pfs_option(&String::from_utf8_lossy(&o.stdout)),
        _ => true,
    };
    if let Ok(mut m) = seen.lock() {
        m.insert(bin.server.clone(), has);
    }
    has
}

/// The instrument classes a MySQL build compiled out (its `-DDISABLE_PSI_X=ON` options, read
/// from the build's record); none for a server psbench did not build.
pub fn psi_classes_out(bin: &Binaries) -> Vec<String> {
    let Some(record) = crate::builds::cache::of_server(&bin.server) else {
        return Vec::new();
    };
    record
        .options
        .iter()
        .filter_map(|o| o.strip_prefix("-DDISABLE_PSI_")?.strip_suffix("=ON"))
        .map(str::to_string)
        .collect()
}

/// The option list of `--verbose --help` has a `--performance-schema` line.
fn lists_pfs_option(help: &str) -> bool {
    help.lines().any(|l| {
        l.trim_start()
            .strip_prefix("--performance-schema")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '[', '=']))
    })
}

/// The options a server without performance_schema is started with: asking for it off is
/// what it is, so dropped; asking for any of it on is refused by name.
pub fn fit_options(options: Vec<ServerOption>, server: &str) -> Result<Vec<ServerOption>> {
    let mut kept = Vec::new();
    for o in options {
        if !o.base_key().starts_with("performance_schema") {
            kept.push(o);
            continue;
        }
        let (key, value) = o.expected();
        let off = key == "performance_schema"
            && matches!(value.to_ascii_uppercase().as_str(), "OFF" | "0" | "FALSE");
        if !off {
            return Err(usage(format!(
                "option {} needs performance_schema, which {server} has compiled out",
                o.display()
            )));
        }
    }
    Ok(kept)
}

/// On the running server: no PERFORMANCE_SCHEMA storage engine, no such plugin, no
/// `@@performance_schema` — compiled out, not merely off or unloaded.
pub fn verify(conn: &mut mysql::Conn) -> Result<()> {
    let engines: u64 = conn
        .query_first(
            "SELECT COUNT(*) FROM information_schema.ENGINES WHERE ENGINE = 'PERFORMANCE_SCHEMA'",
        )
        .context("reading information_schema.ENGINES")?
        .unwrap_or(0);
    let plugins: u64 = conn
        .query_first(
            "SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'PERFORMANCE_SCHEMA'",
        )
        .context("reading information_schema.PLUGINS")?
        .unwrap_or(0);
    let variables: Vec<(String, String)> = conn
        .query("SHOW GLOBAL VARIABLES LIKE 'performance\\_schema'")
        .context("reading the performance_schema variable")?;
    let mut found = Vec::new();
    if engines > 0 {
        found.push("a PERFORMANCE_SCHEMA storage engine");
    }
    if plugins > 0 {
        found.push("a PERFORMANCE_SCHEMA plugin");
    }
    if !variables.is_empty() {
        found.push("@@performance_schema");
    }
    if !found.is_empty() {
        bail!(
            "performance_schema is not compiled out: the server has {}",
            found.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_is_told_from_help_text_mentioning_it() {
        let with = "  --performance-schema \n                      Enable the performance schema.\n  --performance-schema-accounts-size=#\n";
        assert!(lists_pfs_option(with));
        // Words about performance elsewhere, or only a related option's name, are not it.
        let without = "  --slow-query-log    the performance impact of slow logging\n  --performance-schema-consumer-x\n";
        assert!(!lists_pfs_option(without));
    }

    #[test]
    fn off_is_dropped_and_anything_on_is_refused_by_name() {
        let opts = vec![
            ServerOption::parse("performance_schema=OFF").unwrap(),
            ServerOption::parse("innodb_buffer_pool_size=1G").unwrap(),
            ServerOption::parse("skip-performance-schema").unwrap(),
        ];
        let kept = fit_options(opts, "build no_pfs").unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].key, "innodb_buffer_pool_size");
        let on = vec![ServerOption::parse("performance_schema_instrument=%=ON").unwrap()];
        let e = fit_options(on, "build no_pfs").unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(
            e.to_string().contains("performance_schema_instrument=%=ON")
                && e.to_string().contains("build no_pfs has compiled out"),
            "{e}"
        );
    }
}
