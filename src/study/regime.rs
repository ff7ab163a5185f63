//! Data regimes (docs/study-file.md#dataset): `cached` data fits the variant's buffer pool
//! and is read into it before measuring; `io-bound` data is at least 4× the pool and read
//! past the OS page cache (O_DIRECT, which MySQL 5.7 and 8.0 do not use by default). The data
//! is sized from the variants' own pools (each cell's regime is checked as it runs:
//! crate::run::regime).

use crate::engines::mysql::options::DEFAULT_BUFFER_POOL;
use crate::error::usage;
use crate::results::study::{Study, Variant};
use crate::results::Regime;
use crate::server::options::as_size;
use crate::server::ServerOption;
use anyhow::Result;

/// IO-bound data is at least this many times the largest IO-bound pool (the ratio of the
/// published study of MySQL 5.7 against 8.0 on IO-bound writes is 4; the margin covers the
/// estimate of bytes per row).
const IO_BOUND_RATIO: f64 = 4.5;
/// Without IO-bound variants, cached data fills this share of the smallest pool.
const CACHED_SHARE: f64 = 0.5;
/// A cached variant's pool holds the data with this margin (psbench sizes the pool to it
/// when the variant does not set one).
const CACHED_MARGIN: f64 = 1.5;
/// Data and indexes per sysbench row after loading: 236 MB for 4 × 250,000 rows on
/// MariaDB 10.11 (information_schema, measured here).
pub const BYTES_PER_ROW: f64 = 250.0;

/// The regime a variant's throughput cells run in: its own, else the study's preset.
pub fn of(study: &Study, v: &Variant) -> Option<Regime> {
    let name = v.dataset.as_deref().or(study.dataset.preset.as_deref())?;
    parse(name).ok()
}

pub fn parse(name: &str) -> Result<Regime> {
    match name {
        "cached" => Ok(Regime::Cached),
        "io-bound" => Ok(Regime::IoBound),
        other => Err(usage(format!(
            "dataset '{other}' is neither 'cached' nor 'io-bound'"
        ))),
    }
}

/// The buffer pool a variant asks for, else the sandbox's.
pub fn pool_bytes(v: &Variant) -> u64 {
    own_pool(v).unwrap_or_else(|| as_size(DEFAULT_BUFFER_POOL).unwrap_or(0) as u64)
}

fn own_pool(v: &Variant) -> Option<u64> {
    v.options
        .iter()
        .filter_map(|o| ServerOption::parse(o).ok())
        .filter(|o| o.base_key() == "innodb_buffer_pool_size")
        .filter_map(|o| o.value.as_deref().and_then(as_size))
        .next_back()
        .map(|b| b as u64)
}

/// Bytes of data the study's regimes call for, or None when no variant asks for one.
pub fn data_bytes(study: &Study) -> Option<u64> {
    let of = |r| {
        study
            .variants
            .iter()
            .filter(move |v| of(study, v) == Some(r))
            .map(pool_bytes)
    };
    if let Some(pool) = of(Regime::IoBound).max() {
        return Some((pool as f64 * IO_BOUND_RATIO) as u64);
    }
    of(Regime::Cached)
        .min()
        .map(|pool| (pool as f64 * CACHED_SHARE) as u64)
}

/// Rows per table for `tables` tables holding `bytes`.
pub fn rows_for(bytes: u64, tables: u32) -> u32 {
    (bytes as f64 / BYTES_PER_ROW / tables.max(1) as f64).ceil() as u32
}

/// Before anything starts: each regime name is known, and a cached variant that sets its own
/// pool can hold the data psbench sizes (a study that sets `table_size` itself is checked by
/// its cells only).
pub fn check(study: &Study) -> Result<()> {
    for v in &study.variants {
        if let Some(d) = &v.dataset {
            parse(d).map_err(|e| usage(format!("variant '{}': {e}", v.name)))?;
        }
    }
    if let Some(p) = &study.dataset.preset {
        parse(p)?;
    }
    let Some(bytes) = data_bytes(study) else {
        return Ok(());
    };
    if study.dataset.table_size.is_some() {
        return Ok(());
    }
    for v in &study.variants {
        if let (Some(Regime::Cached), Some(pool)) = (of(study, v), own_pool(v)) {
            if (pool as f64) < bytes as f64 * CACHED_MARGIN {
                return Err(usage(format!(
                    "variant '{}' runs cached, but its buffer pool ({} MB) cannot hold the data with margin (about {} MB, sized for the io-bound variants): give it at least {} MB or leave its pool to psbench",
                    v.name,
                    pool >> 20,
                    bytes >> 20,
                    (bytes as f64 * CACHED_MARGIN) as u64 >> 20
                )));
            }
        }
    }
    Ok(())
}

/// A note when a binary's loaded data came out under 4× the largest IO-bound pool of its
/// variants (a study that sets `table_size` itself, or rows denser than the estimate).
pub fn size_note(
    study: &Study,
    basedir: Option<&std::path::Path>,
    server: &str,
    bytes: u64,
) -> Option<String> {
    let pool = study
        .variants
        .iter()
        .filter(|v| v.basedir.as_deref() == basedir && of(study, v) == Some(Regime::IoBound))
        .map(pool_bytes)
        .max()?;
    let ratio = bytes as f64 / pool as f64;
    (bytes > 0 && ratio < 4.0).then(|| {
        format!(
            "{server}: the data ({} MB) is only {ratio:.1}× the IO-bound buffer pool ({} MB), under the 4× an IO-bound run needs; the cells' regime checks say whether they still read from disk",
            bytes >> 20,
            pool >> 20
        )
    })
}

/// Options a variant's throughput sandbox gets for its regime: O_DIRECT for io-bound (checked
/// on start like any option), and for a cached variant without its own pool one that holds
/// `data_bytes` with margin.
pub fn launch_options(study: &Study, v: &Variant, data_bytes: u64) -> Vec<ServerOption> {
    match of(study, v) {
        Some(Regime::IoBound) => vec![ServerOption::new("innodb_flush_method", "O_DIRECT")],
        Some(Regime::Cached) if own_pool(v).is_none() => {
            let want = (data_bytes as f64 * CACHED_MARGIN) as u64;
            let chunk = 128u64 << 20;
            let pool = want.div_ceil(chunk).max(2) * chunk;
            vec![ServerOption::new(
                "innodb_buffer_pool_size",
                &format!("{}M", pool >> 20),
            )]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study(text: &str) -> Study {
        let s: Study = toml::from_str(text).unwrap();
        check(&s).unwrap();
        s
    }

    const TWO: &str = r#"
name = "t"
[dataset]
preset = "io-bound"
[[variant]]
name = "io"
options = ["innodb_buffer_pool_size=64M"]
[[variant]]
name = "warm"
dataset = "cached"
[[workload]]
workload = "oltp_point_select"
"#;

    #[test]
    fn data_is_sized_from_the_io_bound_pool_and_cached_pools_follow() {
        let s = study(TWO);
        let bytes = data_bytes(&s).unwrap();
        assert_eq!(bytes, (64u64 << 20) * 9 / 2);
        assert_eq!(of(&s, &s.variants[0]), Some(Regime::IoBound));
        assert_eq!(of(&s, &s.variants[1]), Some(Regime::Cached));
        let io = launch_options(&s, &s.variants[0], bytes);
        assert_eq!(io[0].display(), "innodb_flush_method=O_DIRECT");
        // 288 MB × 1.5 → 512M in 128M chunks.
        let warm = launch_options(&s, &s.variants[1], bytes);
        assert_eq!(warm[0].display(), "innodb_buffer_pool_size=512M");
        assert_eq!(rows_for(bytes, 8), 150_995);
    }

    #[test]
    fn a_cached_pool_too_small_for_the_data_is_refused() {
        let text = TWO.replace(
            "dataset = \"cached\"",
            "dataset = \"cached\"\noptions = [\"innodb_buffer_pool_size=128M\"]",
        );
        let e = check(&toml::from_str(&text).unwrap()).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(e.to_string().contains("cannot hold the data"), "{e}");
        // With its own table_size the study is the user's: the cells judge it.
        let own = text.replace(
            "preset = \"io-bound\"",
            "preset = \"io-bound\"\ntable_size = 1000",
        );
        assert!(check(&toml::from_str(&own).unwrap()).is_ok());
    }
}
