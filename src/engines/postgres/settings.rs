//! Whether the settings asked for took effect, judged from the server's own pg_settings:
//! values are compared in the setting's unit (`shared_buffers=128MB` reads back as 16384
//! of 8kB), booleans and enumerations by meaning, lists element by element.

use crate::server::options::ServerOption;
use std::collections::BTreeMap;

/// One row of pg_settings: the effective value in its base unit, the unit and the type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    pub setting: String,
    pub unit: Option<String>,
    pub vartype: String,
}

/// Options whose effective value differs from the one asked for: (option, what the server
/// reports). A dotted option (`pg_stat_statements.track`) that pg_settings does not list
/// belongs to a library that was not loaded: the server only kept it as a placeholder.
pub fn not_applied(
    options: &[ServerOption],
    settings: &BTreeMap<String, Setting>,
) -> Vec<(ServerOption, String)> {
    let mut bad = Vec::new();
    for o in options {
        let want = o.value.as_deref().unwrap_or("on");
        match settings.get(&o.key) {
            None => bad.push((
                o.clone(),
                "no such setting (is its library in shared_preload_libraries?)".to_string(),
            )),
            Some(s) if !same(want, s) => {
                let shown = match &s.unit {
                    Some(u) => format!("{} ({u})", s.setting),
                    None => s.setting.clone(),
                };
                bad.push((o.clone(), shown));
            }
            Some(_) => {}
        }
    }
    bad
}

fn same(want: &str, s: &Setting) -> bool {
    let want = want.trim().trim_matches(|c| c == '\'' || c == '"');
    match s.vartype.as_str() {
        "bool" => as_bool(want).is_some() && as_bool(want) == as_bool(&s.setting),
        "integer" | "real" => match (
            in_base_unit(want, s.unit.as_deref()),
            s.setting.parse::<f64>(),
        ) {
            (Some(w), Ok(a)) => (w - a).abs() <= 1e-9 * a.abs().max(1.0),
            _ => false,
        },
        _ => list(want) == list(&s.setting),
    }
}

/// `a, b` and `a,b` alike; enumerations and names are case-insensitive.
fn list(v: &str) -> Vec<String> {
    v.split(',')
        .map(|p| p.trim().trim_matches('"').to_ascii_lowercase())
        .filter(|p| !p.is_empty())
        .collect()
}

/// PostgreSQL accepts on/off, true/false, yes/no, 1/0 and unique prefixes of them.
fn as_bool(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" | "t" | "y" => Some(true),
        "off" | "false" | "no" | "0" | "f" | "n" => Some(false),
        _ => None,
    }
}

/// `128MB` in a setting whose unit is `8kB` → 16384; `2s` in `ms` → 2000; a bare number is
/// already in the setting's unit.
fn in_base_unit(v: &str, unit: Option<&str>) -> Option<f64> {
    let split = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(v.len());
    let (num, suffix) = v.split_at(split);
    let n: f64 = num.parse().ok()?;
    let suffix = suffix.trim();
    if suffix.is_empty() {
        return Some(n);
    }
    let unit = unit?;
    Some(n * scale(suffix)? / scale(unit)?)
}

/// A unit in bytes or microseconds; `8kB` is a multiple of `kB`.
fn scale(unit: &str) -> Option<f64> {
    let split = unit.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
    let (mult, name) = unit.split_at(split);
    let mult: f64 = if mult.is_empty() {
        1.0
    } else {
        mult.parse().ok()?
    };
    let base = match name {
        "B" => 1.0,
        "kB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        "GB" => 1024.0 * 1024.0 * 1024.0,
        "TB" => 1024.0f64.powi(4),
        "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        "min" => 60e6,
        "h" => 3600e6,
        "d" => 86400e6,
        _ => return None,
    };
    Some(mult * base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(setting: &str, unit: Option<&str>, vartype: &str) -> Setting {
        Setting {
            setting: setting.into(),
            unit: unit.map(str::to_string),
            vartype: vartype.into(),
        }
    }

    fn judged(key_value: &str, setting: Setting) -> Vec<(ServerOption, String)> {
        let o = ServerOption::parse(key_value).unwrap();
        let mut m = BTreeMap::new();
        m.insert(o.key.clone(), setting);
        not_applied(&[o], &m)
    }

    #[test]
    fn values_are_compared_in_the_settings_unit() {
        assert!(judged("shared_buffers=128MB", s("16384", Some("8kB"), "integer")).is_empty());
        assert!(!judged("shared_buffers=256MB", s("16384", Some("8kB"), "integer")).is_empty());
        assert!(judged("shared_buffers=16384", s("16384", Some("8kB"), "integer")).is_empty());
        assert!(judged("checkpoint_timeout=5min", s("300", Some("s"), "integer")).is_empty());
        assert!(judged(
            "auto_explain.log_min_duration=0",
            s("0", Some("ms"), "integer")
        )
        .is_empty());
        assert!(judged(
            "log_min_duration_statement=-1",
            s("-1", Some("ms"), "integer")
        )
        .is_empty());
    }

    #[test]
    fn booleans_enums_and_lists_by_meaning() {
        assert!(judged("track_io_timing", s("on", None, "bool")).is_empty());
        assert!(!judged("track_io_timing=off", s("on", None, "bool")).is_empty());
        assert!(judged("pg_stat_statements.track=TOP", s("top", None, "enum")).is_empty());
        assert!(judged(
            "shared_preload_libraries='pg_stat_statements, auto_explain'",
            s("pg_stat_statements,auto_explain", None, "string")
        )
        .is_empty());
        assert!(!judged(
            "shared_preload_libraries=pg_stat_statements",
            s("", None, "string")
        )
        .is_empty());
    }

    #[test]
    fn a_setting_of_a_library_not_loaded_is_named() {
        let o = ServerOption::parse("pg_stat_statements.track=all").unwrap();
        let bad = not_applied(&[o], &BTreeMap::new());
        assert_eq!(bad.len(), 1);
        assert!(
            bad[0].1.contains("shared_preload_libraries"),
            "{}",
            bad[0].1
        );
    }
}
