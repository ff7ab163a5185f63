//! `psbench history N --otava DIR`: one series as Apache Otava reads it, so that Otava's
//! `analyze` can be run on psbench's own history: `DIR/series-N.csv` (time, release, point,
//! value) and `DIR/otava.yaml` naming it as a csv test with the metric's direction.
//!
//! Otava orders points by time. A sweep's points share their study's date, so each point's
//! time is its date plus its position in the series in seconds: the order psbench uses.

use super::store::{Series, StoredPoint};
use anyhow::{Context, Result};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The test's name in otava.yaml.
pub fn test_name(series: &Series) -> String {
    format!("psbench-series-{}", series.id)
}

/// Write the CSV and the configuration; returns the configuration's path.
pub fn write(dir: &Path, series: &Series, points: &[StoredPoint]) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let dir = dir
        .canonicalize()
        .with_context(|| format!("resolving {}", dir.display()))?;
    let csv = dir.join(format!("series-{}.csv", series.id));
    let mut text = String::from("time,release,point,value\n");
    for (i, p) in points.iter().enumerate() {
        let at =
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(p.point.date_unix + i as u64);
        let _ = writeln!(
            text,
            "{},{},{},{}",
            humantime::format_rfc3339_seconds(at),
            p.point.release.replace(',', " "),
            p.id,
            p.point.value
        );
    }
    std::fs::write(&csv, text).with_context(|| format!("writing {}", csv.display()))?;
    // Otava's direction: 1 when higher is better, -1 when lower is.
    let direction = if series.key.metric.higher_is_better() {
        1
    } else {
        -1
    };
    let config = dir.join("otava.yaml");
    let yaml = format!(
        "# psbench history series {}: {} {} {}, {}\n# otava analyze {} --config-file {}\ntests:\n  {}:\n    type: csv\n    file: {}\n    time_column: time\n    attributes: [release, point]\n    metrics:\n      value:\n        column: value\n        direction: {direction}\n",
        series.id,
        series.key.engine,
        series.key.step,
        series.key.threads,
        series.key.metric.name(),
        test_name(series),
        config.display(),
        test_name(series),
        csv.display()
    );
    std::fs::write(&config, yaml).with_context(|| format!("writing {}", config.display()))?;
    Ok(config)
}
