//! `psbench history changes FILE`: the change points of any series, read from a CSV file, by
//! the rules the history uses — so that a series from elsewhere (another tool's results, a
//! dashboard's export) can be checked the same way, and the rules compared with other tools'.

use super::analysis::Options;
use crate::error::usage;
use crate::stats::changes::{self, Change, Observation};
use anyhow::Result;
use std::path::Path;

/// One row of the file: a value and, for counts, the range of its repeats.
#[derive(serde::Deserialize)]
struct Row {
    value: f64,
    low: Option<f64>,
    high: Option<f64>,
}

/// The points of `path`: a CSV file with a `value` column (and `low`, `high` for counts),
/// one row per point in series order.
fn read(path: &Path) -> Result<Vec<Row>> {
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| usage(format!("{}: {e}", path.display())))?;
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize::<Row>().enumerate() {
        let row = row.map_err(|e| usage(format!("{}: row {}: {e}", path.display(), i + 1)))?;
        if !row.value.is_finite() {
            return Err(usage(format!(
                "{}: row {}: value is not a number",
                path.display(),
                i + 1
            )));
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(usage(format!(
            "{}: no points (a CSV file with a value column, one row per point)",
            path.display()
        )));
    }
    Ok(rows)
}

/// The changes of the series in `path`: by the rule for counts when `counts`, else by
/// E-Divisive means with the t test; one CSV line per change.
pub fn changes_of_file(path: &Path, counts: bool, o: &Options) -> Result<String> {
    let rows = read(path)?;
    let found = if counts {
        let obs: Vec<Observation> = rows
            .iter()
            .map(|r| Observation {
                value: r.value,
                low: r.low.unwrap_or(r.value),
                high: r.high.unwrap_or(r.value),
            })
            .collect();
        changes::precise(&obs, &o.precise)
    } else {
        let x: Vec<f64> = rows.iter().map(|r| r.value).collect();
        changes::noisy(&x, &o.noisy)
    };
    Ok(text(&found))
}

/// `index,mean_before,mean_after,magnitude_percent,low_percent,high_percent,p_value,pending`:
/// the index is the first point (from 0) of the new level; `pending`, the points a change
/// still needs after it before it is called (0: called).
fn text(found: &[Change]) -> String {
    let mut out = String::from(
        "index,mean_before,mean_after,magnitude_percent,low_percent,high_percent,p_value,pending\n",
    );
    for c in found {
        out += &format!(
            "{},{},{},{:.3},{:.3},{:.3},{},{}\n",
            c.index,
            c.mean_before,
            c.mean_after,
            c.magnitude * 100.0,
            c.magnitude_low * 100.0,
            c.magnitude_high * 100.0,
            c.p_value.map_or(String::new(), |p| format!("{p:.3e}")),
            c.pending
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn a_step_in_a_file_is_found_at_its_index() {
        let mut text = String::from("value\n");
        for i in 0..30 {
            let level = if i < 15 { 100.0 } else { 110.0 };
            text += &format!("{}\n", level + [0.8, -1.1, 0.3, -0.4, 1.2][i % 5]);
        }
        let (_d, path) = file(&text);
        let out = changes_of_file(&path, false, &Options::default()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(lines[1].starts_with("15,"), "{out}");
        // Counts: a 2% step found, a 0.3% one not.
        let (_d, path) =
            file("value,low,high\n1000,999,1001\n1000,999,1001\n1020,1019,1021\n1023,1022,1024\n");
        let out = changes_of_file(&path, true, &Options::default()).unwrap();
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(out.lines().nth(1).unwrap().starts_with("2,1000,"), "{out}");
    }

    #[test]
    fn a_bad_file_is_one_usage_line() {
        for (text, says) in [
            ("", "no points"),
            ("value\nabc\n", "row 1"),
            ("other\n1\n", "row 1"),
        ] {
            let (_d, path) = file(text);
            let e = changes_of_file(&path, false, &Options::default()).unwrap_err();
            assert!(crate::error::is_usage(&e));
            assert!(crate::error::one_line(&e).contains(says), "{e:#}");
        }
        let e = changes_of_file(Path::new("/nonexistent/s.csv"), false, &Options::default())
            .unwrap_err();
        assert!(crate::error::is_usage(&e));
    }
}
