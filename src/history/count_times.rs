//! How long cost mode's counts took on this host: read from the studies the history holds, so
//! that `psbench run --plan` expects of a count what counts of its engine and step took here.

use super::series::{engine, host_class};
use super::History;
use crate::results::{CountTime, Host, StudyResults};
use std::path::Path;

/// How many of the latest documents are read: enough for every engine and step a host runs,
/// few enough that `--plan` stays instant.
const LATEST: usize = 40;

/// The counts of the latest studies in the history at `path` that ran on `host`'s class of
/// machine. None without a history there; a document moved or removed since is passed over.
pub fn on_host(path: &Path, host: &Host) -> Vec<CountTime> {
    if !path.is_file() {
        return Vec::new();
    }
    let Ok(paths) = History::existing(path).and_then(|h| h.document_paths(LATEST)) else {
        return Vec::new();
    };
    let class = host_class(host);
    paths
        .iter()
        .filter_map(|p| StudyResults::load(Path::new(p)).ok())
        .filter(|doc| host_class(&doc.host) == class)
        .flat_map(|doc| of_document(&doc))
        .collect()
}

/// Every count of `doc` that succeeded and recorded its time.
pub fn of_document(doc: &StudyResults) -> Vec<CountTime> {
    doc.cost
        .iter()
        .filter(|c| c.ok)
        .filter_map(|c| {
            Some(CountTime {
                engine: engine(doc.cost_provenance(&c.variant)),
                step: c.step.clone(),
                seconds: c.seconds?,
                events: c.windows.iter().map(|w| w.events).max(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_studys_counts_are_mariadbs_point_selects_with_their_times() {
        let text = include_str!("../../tests/data/first-screen/pfs-overhead/results.json");
        let doc: StudyResults = serde_json::from_str(text).unwrap();
        let counts = of_document(&doc);
        assert_eq!(counts.len(), 12);
        assert!(counts
            .iter()
            .all(|c| c.engine == "mariadb" && c.step == "point_select"));
        // The document's own times, not a default: they differ from count to count.
        let min = counts.iter().map(|c| c.seconds).fold(f64::MAX, f64::min);
        let max = counts.iter().map(|c| c.seconds).fold(0.0, f64::max);
        assert!(min > 1.0 && max > min, "{min} {max}");
    }
}
