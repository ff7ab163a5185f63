//! What a report describes: the results of one study, or two studies merged by
//! `psbench compare`, with the pairs of variants to compare and where each document came from.

use crate::results::{Host, StudyResults};

pub struct Subject {
    pub results: StudyResults,
    /// Each compared variant with its base, in the study's order.
    pub pairs: Vec<Pair>,
    /// The documents behind the report: one for a study, A and B for a comparison.
    pub sources: Vec<Source>,
    /// A study still running says where it stands on the report's first line: "running:
    /// round 2 of 3, about 3 min left".
    pub running: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub new: String,
    pub base: String,
}

impl Pair {
    /// "new / base", the way the relative tables name a column.
    pub fn label(&self) -> String {
        format!("{} / {}", self.new, self.base)
    }
}

pub struct Source {
    /// "" for a single study; "A" or "B" in a comparison.
    pub label: String,
    /// The results file it was read from, or the results directory written.
    pub path: String,
    pub study: String,
    pub origin: String,
    pub tool_version: String,
    pub host: Host,
    pub started_unix: u64,
    pub finished_unix: Option<u64>,
    pub seed: u64,
}

impl Source {
    pub fn of(label: &str, path: &str, r: &StudyResults) -> Source {
        Source {
            label: label.to_string(),
            path: path.to_string(),
            study: r.study.name.clone(),
            origin: r.origin.clone(),
            tool_version: r.tool_version.clone(),
            host: merged_hosts(r),
            started_unix: r.started_unix,
            finished_unix: r.finished_unix,
            seed: r.seed,
        }
    }
}

/// A merged document's host is every part's (kernel, CPU and memory are the first part's:
/// shards run on hosts of one type).
fn merged_hosts(r: &StudyResults) -> Host {
    let mut host = r.host.clone();
    let hosts = r.sharding.hosts();
    if !r.sharding.parts.is_empty() && hosts.len() > 1 {
        host.hostname = hosts.join(", ");
    }
    host
}

impl Subject {
    /// One study: every variant compared with the study's base, then the study's own `pairs`.
    pub fn study(results: StudyResults, path: &str) -> Subject {
        let base = results.study.base_variant().to_string();
        let measured = variants(&results);
        let mut pairs: Vec<Pair> = measured
            .iter()
            .filter(|v| **v != base)
            .map(|new| Pair {
                new: new.clone(),
                base: base.clone(),
            })
            .collect();
        for [new, base] in &results.study.pairs {
            let p = Pair {
                new: new.clone(),
                base: base.clone(),
            };
            if measured.contains(new) && measured.contains(base) && !pairs.contains(&p) {
                pairs.push(p);
            }
        }
        let sources = vec![Source::of("", path, &results)];
        Subject {
            results,
            pairs,
            sources,
            running: None,
        }
    }

    pub fn title(&self) -> String {
        let s = &self.results.study;
        if s.description.is_empty() {
            s.name.clone()
        } else {
            format!("{}: {}", s.name, s.description)
        }
    }

    /// One study: its variants ran side by side in each round, so rounds pair up.
    pub fn paired(&self) -> bool {
        self.sources.len() == 1
    }

    pub fn threshold(&self) -> f64 {
        self.results.study.threshold
    }
}

/// The variants with any result (throughput or cost), in the study's order.
pub fn variants(r: &StudyResults) -> Vec<String> {
    r.study
        .variants
        .iter()
        .map(|v| v.name.clone())
        .filter(|n| {
            r.cells.iter().any(|c| &c.key.variant == n) || r.cost.iter().any(|c| &c.variant == n)
        })
        .collect()
}
