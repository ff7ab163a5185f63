//! A latency distribution as the documents hold it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A distribution in milliseconds, for the JSON document.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub sum: f64,
    /// Keyed by percentile ("50", "95", "99", "99.9", and each `--percentile`).
    pub percentiles: BTreeMap<String, f64>,
}
