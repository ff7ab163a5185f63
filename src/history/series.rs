//! What a results document adds to the history: one point per (variant, step, threads,
//! metric), each keyed by the series it belongs to (docs/history.md#series).
//!
//! A series is what stays the same while releases and days pass: the engine, the channel or
//! build recipe, the workload step and its data, the variant's settings, threads, the metric
//! and the class of host. The release, binary checksum and date are the point's own.

use crate::results::build::Origin;
use crate::results::study::{Variant, WorkloadStep};
use crate::results::{Host, StudyResults, VariantProvenance};
use crate::stats::compare::t_interval;
use std::collections::BTreeMap;

/// What a series keeps constant.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SeriesKey {
    /// `mariadb`, `mysql`, `postgres`.
    pub engine: String,
    /// Where its servers come from, without the release: the system's package, a fetch
    /// channel, a build recipe (flag set and compiler), a tree's path.
    pub channel: String,
    pub step: String,
    /// The step's workload and options and the study's data.
    pub workload: String,
    /// The variant's settings: scenario, preset, options, statements, data regime.
    pub settings: String,
    /// Client threads; 0 for cost mode (one client, counted).
    pub threads: u32,
    pub metric: Metric,
    /// CPU model, CPUs, memory, virtualised or not.
    pub host_class: String,
}

/// What a point measures, and which way is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// Instructions per transaction, row or query (cost mode): precise, lower is better.
    Instructions(&'static str),
    /// Transactions (rows, queries) per second: noisy, higher is better.
    Throughput,
    /// Server CPU microseconds per transaction: noisy, lower is better.
    ServerCpu,
}

impl Metric {
    pub fn name(self) -> String {
        match self {
            Metric::Instructions(unit) => format!("instructions per {unit}"),
            Metric::Throughput => "throughput per second".into(),
            Metric::ServerCpu => "server CPU µs per transaction".into(),
        }
    }

    /// The metric named `name` (as [`Metric::name`] writes it).
    pub fn parse(name: &str) -> Option<Metric> {
        match name {
            "throughput per second" => Some(Metric::Throughput),
            "server CPU µs per transaction" => Some(Metric::ServerCpu),
            _ => {
                let unit = name.strip_prefix("instructions per ")?;
                ["transaction", "row", "query"]
                    .into_iter()
                    .find(|u| *u == unit)
                    .map(Metric::Instructions)
            }
        }
    }

    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Throughput)
    }

    /// Whether its points repeat within a fraction of a percent (instruction counts).
    pub fn precise(self) -> bool {
        matches!(self, Metric::Instructions(_))
    }
}

/// One measurement of a series.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The variant of the document it came from.
    pub variant: String,
    /// The server's version as it printed it.
    pub release: String,
    pub binary_sha256: String,
    /// A build's source as pinned (`debian:mariadb=1:10.11.18-0+deb12u1`), where built.
    pub source: Option<String>,
    pub date_unix: u64,
    pub value: f64,
    /// 95% interval: over rounds (throughput, CPU), or the count's repeats (cost); `None`
    /// from a single round.
    pub interval: Option<(f64, f64)>,
    pub rounds: u32,
}

/// Every point of a finished document with its series.
pub fn points(doc: &StudyResults) -> Vec<(SeriesKey, Point)> {
    let date = doc.finished_unix.unwrap_or(doc.started_unix);
    let host = host_class(&doc.host);
    let mut out = Vec::new();
    // Cost mode's servers are recorded apart from the throughput rounds'.
    let prov_of = |variant: &str, metric: Metric| {
        if metric.precise() {
            doc.cost_provenance(variant)
        } else {
            doc.provenance(variant)
        }
    };
    let key = |variant: &str, step: &str, threads: u32, metric: Metric| {
        let prov = prov_of(variant, metric);
        SeriesKey {
            engine: engine(prov),
            channel: channel(prov),
            step: step.to_string(),
            workload: workload(doc, step),
            settings: settings(doc.study.variants.iter().find(|v| v.name == variant)),
            threads,
            metric,
            host_class: host.clone(),
        }
    };
    let point =
        |variant: &str, metric: Metric, value: f64, interval: Option<(f64, f64)>, rounds: u32| {
            let prov = prov_of(variant, metric);
            Point {
                variant: variant.to_string(),
                release: prov.map(release).unwrap_or_default(),
                binary_sha256: prov.map(sha256).unwrap_or_default(),
                source: prov.and_then(source),
                date_unix: date,
                value,
                interval,
                rounds,
            }
        };
    // A count that did not repeat within the self-check's tolerance keeps its repeats' range as
    // its interval, so the rule for counts calls a change on it only beyond that range.
    for c in doc.cost.iter().filter(|c| c.ok) {
        let (low, high) = c.repeat_range();
        let metric = Metric::Instructions(c.unit.name());
        out.push((
            key(&c.variant, &c.step, 0, metric),
            point(&c.variant, metric, c.ir_per_txn, Some((low, high)), 1),
        ));
    }
    // Throughput and server CPU: the rounds of each (variant, step, threads).
    type Cell<'a> = (&'a str, &'a str, u32);
    let mut rounds: BTreeMap<Cell, Vec<(f64, f64)>> = BTreeMap::new();
    for c in doc.cells.iter().filter(|c| c.ok && c.tps > 0.0) {
        rounds
            .entry((&c.key.variant, &c.key.step, c.key.threads))
            .or_default()
            .push((c.tps, c.resources.server_cpu_us_per_txn));
    }
    for ((variant, step, threads), values) in rounds {
        for metric in [Metric::Throughput, Metric::ServerCpu] {
            let x: Vec<f64> = values
                .iter()
                .map(|(tps, cpu)| {
                    if metric == Metric::Throughput {
                        *tps
                    } else {
                        *cpu
                    }
                })
                .filter(|v| *v > 0.0)
                .collect();
            if x.is_empty() {
                continue;
            }
            let mean = x.iter().sum::<f64>() / x.len() as f64;
            out.push((
                key(variant, step, threads, metric),
                point(variant, metric, mean, t_interval(&x), x.len() as u32),
            ));
        }
    }
    out
}

/// `AMD EPYC, 2 CPUs, 24 GiB, virtualised`: hosts of one class give comparable points.
pub fn host_class(h: &Host) -> String {
    let gib = (h.memory_mb as f64 / 1024.0).round();
    let virt = match h.virtualised {
        Some(true) => ", virtualised",
        Some(false) => ", bare metal",
        None => "",
    };
    format!("{}, {} CPUs, {gib} GiB{virt}", h.cpu_model, h.cpus)
}

/// The engine a variant ran, as the history names it (`mariadb`, `mysql`, `postgres`).
pub fn engine(prov: Option<&VariantProvenance>) -> String {
    match prov.and_then(|p| p.build.as_ref()) {
        // The flavour as a document writes it (`mariadb`).
        Some(b) => serde_json::to_value(b.flavour)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        // Documents from before the build identity: what the server's version says.
        None => {
            let v = prov.map(|p| p.server_version.as_str()).unwrap_or("");
            if v.contains("MariaDB") {
                "mariadb".into()
            } else if prov.is_some_and(|p| p.pfs.is_some()) {
                "mysql".into()
            } else {
                "postgres".into()
            }
        }
    }
}

fn channel(prov: Option<&VariantProvenance>) -> String {
    match prov {
        Some(p) => match &p.build {
            Some(b) => b.origin.channel(),
            None => format!("binary {}", p.server_binary),
        },
        None => String::new(),
    }
}

fn release(p: &VariantProvenance) -> String {
    p.build
        .as_ref()
        .map(|b| b.version.clone())
        .unwrap_or_else(|| p.server_version.clone())
}

fn sha256(p: &VariantProvenance) -> String {
    p.build
        .as_ref()
        .map(|b| b.sha256.clone())
        .unwrap_or_else(|| p.server_sha256.clone())
}

fn source(p: &VariantProvenance) -> Option<String> {
    match p.build.as_ref().map(|b| &b.origin) {
        Some(Origin::Build { source, .. }) => Some(source.clone()),
        _ => None,
    }
}

/// The study's entry that measured `step`: the entry labelled so, else one that measured its
/// own steps under their labels (its label is no step of the document) and names them
/// after its name, or has none.
fn entry<'a>(doc: &'a StudyResults, step: &str) -> Option<&'a WorkloadStep> {
    let study = &doc.study;
    study
        .workloads
        .iter()
        .find(|w| w.label() == step)
        .or_else(|| {
            study.workloads.iter().find(|w| {
                !doc.steps.contains(&w.label())
                    && w.name
                        .as_ref()
                        .is_none_or(|n| step.starts_with(&format!("{n} ")))
            })
        })
}

fn workload(doc: &StudyResults, step: &str) -> String {
    let study = &doc.study;
    let d = &study.dataset;
    let mut parts = Vec::new();
    if let Some(e) = entry(doc, step) {
        parts.push(e.workload.clone());
        if !e.options.is_empty() {
            parts.push(e.options.to_string().trim().replace('\n', ", "));
        }
    }
    if let Some(p) = &d.preset {
        parts.push(format!("dataset {p}"));
    }
    if let (Some(t), Some(r)) = (d.tables, d.table_size) {
        parts.push(format!("{t} tables of {r} rows"));
    }
    if let Some(s) = d.pgbench_scale {
        parts.push(format!("pgbench scale {s}"));
    }
    parts.join("; ")
}

fn settings(v: Option<&Variant>) -> String {
    let Some(v) = v else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(s) = &v.scenario {
        parts.push(format!("scenario {s}"));
    }
    if let Some(s) = &v.settings {
        parts.push(format!("settings {s}"));
    }
    let mut options = v.options.clone();
    options.sort();
    if !options.is_empty() {
        parts.push(options.join(" "));
    }
    if !v.sql.is_empty() {
        parts.push(format!("sql: {}", v.sql.join("; ")));
    }
    if let Some(d) = &v.dataset {
        parts.push(format!("data {d}"));
    }
    if parts.is_empty() {
        "defaults".into()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_document_gives_one_point_per_variant_step_threads_and_metric() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study");
        let doc = StudyResults::load(&dir).unwrap();
        let all = points(&doc);
        // 2 variants × 2 steps counted; throughput and server CPU of 2 × 2 × 2 threads.
        assert_eq!(all.len(), 20);
        let keys: std::collections::BTreeSet<&SeriesKey> = all.iter().map(|(k, _)| k).collect();
        assert_eq!(keys.len(), 20, "each point its own series");
        let counts: Vec<&(SeriesKey, Point)> =
            all.iter().filter(|(k, _)| k.metric.precise()).collect();
        assert_eq!(counts.len(), 4);
        for (k, p) in &counts {
            assert_eq!((k.threads, k.engine.as_str()), (0, "mariadb"));
            assert_eq!(k.host_class, "AMD EPYC, 2 CPUs, 24 GiB");
            assert!(p.release.starts_with("10.11."), "{p:?}");
        }
        let settings = |variant: &str| {
            counts
                .iter()
                .find(|(_, p)| p.variant == variant)
                .map(|(k, _)| k.settings.clone())
                .unwrap()
        };
        assert_ne!(settings("ps_off"), settings("default"));
        // A cost-only study records its servers only as "NAME [cost]": still the same series.
        let mut cost_only = doc.clone();
        cost_only.variants.retain(|k, _| k.ends_with(" [cost]"));
        cost_only.cells.clear();
        let again = points(&cost_only);
        assert_eq!(again.len(), 4);
        for (k, p) in &again {
            assert_eq!(k.engine, "mariadb");
            assert!(p.release.starts_with("10.11."), "{p:?}");
            assert!(counts.iter().any(|(k0, _)| k0 == k), "{k:?}");
        }
        // Throughput over rounds has an interval around its mean.
        let (_, tps) = all
            .iter()
            .find(|(k, _)| k.metric == Metric::Throughput)
            .unwrap();
        let (low, high) = tps.interval.unwrap();
        assert!(
            low <= tps.value && tps.value <= high && tps.rounds >= 2,
            "{tps:?}"
        );
    }

    #[test]
    fn metrics_know_their_direction_and_names() {
        for m in [
            Metric::Instructions("row"),
            Metric::Throughput,
            Metric::ServerCpu,
        ] {
            assert_eq!(Metric::parse(&m.name()), Some(m));
        }
        assert!(Metric::Throughput.higher_is_better());
        assert!(
            !Metric::ServerCpu.higher_is_better()
                && !Metric::Instructions("query").higher_is_better()
        );
        assert_eq!(Metric::parse("instructions per fortnight"), None);
    }
}
