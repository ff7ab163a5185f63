//! A figure a published study reported, kept in a study file so that the report sets this
//! study's own figures beside it (`[[published]]`, docs/study-file.md#published-figures).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// What the published study said, in its words: "disabling the perf schema in my.cnf or
    /// at compile time".
    pub claim: String,
    /// The variants it is about, each against `base` (default: the study's base).
    pub variants: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The steps it is about.
    pub steps: Vec<String>,
    /// The published throughput of the variants over the base's: one figure (`[1.07]`) or a
    /// range (`[1.11, 1.15]`).
    pub throughput: Vec<f64>,
}

impl Published {
    /// The published range of new / base (one figure: a range of one point).
    pub fn range(&self) -> (f64, f64) {
        let lo = self
            .throughput
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let hi = self
            .throughput
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    }
}
