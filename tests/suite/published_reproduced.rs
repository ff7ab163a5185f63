//! A run that measured exactly what the published studies printed agrees with every figure
//! the built-in studies carry. Each study's cells are set from its own figures (three rounds
//! within ±0.1%): the tables per thread count and per step first, then the figures over
//! several thread counts or steps only where no table gave a cell, so that a summary is
//! judged on the table it summarises. What a figure gives as a range or one side is set at its
//! middle or its bound; a ranking, a threshold in thread counts or in throughput, at values
//! that bear it out.

use psbench::report::published::{judge::Verdict, judged};
use psbench::report::Subject;
use psbench::results::published::{Figure, Published};
use psbench::results::study::Study;
use psbench::results::StudyResults;
use psbench::study::builtin::{builtin, BUILTIN};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// (variant, step, threads) → throughput.
type Tps = BTreeMap<(String, String, u32), f64>;

/// A drop a ranking's costlier tier or a threshold's slower side shows: beyond any band.
const SLOWER: f64 = 0.85;

fn base_of(study: &Study, p: &Published) -> String {
    p.base
        .clone()
        .unwrap_or_else(|| study.base_variant().to_string())
}

/// The thread counts at which `step` runs in the study.
fn threads_of(study: &Study, step: &str) -> Vec<u32> {
    study
        .cells()
        .into_iter()
        .filter(|(s, _)| s == step)
        .map(|(_, t)| t)
        .collect()
}

/// Sets `v` on `step` at `threads` to `ratio` × its base's, where no earlier figure set it;
/// the base is 1000 transactions/s where nothing set it.
fn set(tps: &mut Tps, base: &str, v: &str, step: &str, threads: &[u32], ratio: f64) {
    for t in threads {
        let b = *tps
            .entry((base.to_string(), step.to_string(), *t))
            .or_insert(1000.0);
        tps.entry((v.to_string(), step.to_string(), *t))
            .or_insert(b * ratio);
    }
}

/// The middle of what a figure allows, new / base; `None` for the kinds set apart.
fn middle(f: &Figure) -> Option<f64> {
    match f {
        Figure::Ratio { value, .. } => Some(*value),
        Figure::Range { low, high } => Some((low * high).sqrt()),
        Figure::AtMost(x) | Figure::AtLeast(x) => Some(*x),
        Figure::Absolute { ratio, .. } => *ratio,
        _ => None,
    }
}

/// Every cell's throughput from the study's own figures.
fn reproduced(study: &Study) -> Tps {
    let mut tps = Tps::new();
    // A figure at one thread count and on one step is a table's cell: those go first.
    let mut order: Vec<(usize, &Published, usize)> = Vec::new();
    for p in study.published.iter().filter(|p| p.not_measured.is_none()) {
        for i in 0..p.count() {
            let (_, threads) = p.figure(i).unwrap();
            let rank = match (threads.len(), p.steps.len()) {
                (1, 1) => 0,
                (1, _) => 1,
                _ => 2,
            };
            order.push((rank, p, i));
        }
    }
    order.sort_by_key(|(rank, _, _)| *rank);
    // A threshold in throughput needs a base that climbs with the threads, past the rate
    // halfway: set before any variant is set against it.
    for (_, p, i) in &order {
        if let Some((Figure::FromRate(rate), _)) = p.figure(*i) {
            for step in &p.steps {
                let at = threads_of(study, step);
                for (k, t) in at.iter().enumerate() {
                    let b = rate * 2.0 * (k as f64 + 1.0) / at.len() as f64;
                    tps.insert((base_of(study, p), step.clone(), *t), b);
                }
            }
        }
    }
    for (_, p, i) in &order {
        let (figure, threads) = p.figure(*i).unwrap();
        let base = base_of(study, p);
        for step in &p.steps {
            let at = match threads.is_empty() {
                true => threads_of(study, step),
                false => threads.clone(),
            };
            match &figure {
                Figure::FromThreads(from) => {
                    for v in &p.variants {
                        for t in &at {
                            let r = if t >= from { SLOWER } else { 1.0 };
                            set(&mut tps, &base, v, step, &[*t], r);
                        }
                    }
                }
                Figure::FromRate(rate) => {
                    for t in &at {
                        let b = tps[&(base.clone(), step.clone(), *t)];
                        for v in &p.variants {
                            let r = if b >= *rate { SLOWER } else { 1.0 };
                            set(&mut tps, &base, v, step, &[*t], r);
                        }
                    }
                }
                f => {
                    if let Some(r) = middle(f) {
                        for v in &p.variants {
                            set(&mut tps, &base, v, step, &at, r);
                        }
                    }
                }
            }
        }
    }
    for p in &study.published {
        let Some((Figure::Ranking(tiers), _)) = p.figure(0) else {
            continue;
        };
        let base = base_of(study, p);
        for step in &p.steps {
            let at = threads_of(study, step);
            for (k, tier) in tiers.iter().enumerate() {
                // A tier costs what its member already set costs, else SLOWER per tier above.
                let set_one = tier
                    .iter()
                    .find(|v| tps.contains_key(&((*v).clone(), step.clone(), at[0])));
                for t in &at {
                    let b = *tps
                        .entry((base.clone(), step.clone(), *t))
                        .or_insert(1000.0);
                    let x = match set_one {
                        Some(v) => tps[&(v.clone(), step.clone(), *t)],
                        None => b * SLOWER.powi((tiers.len() - 1 - k) as i32),
                    };
                    for v in tier {
                        tps.entry((v.clone(), step.clone(), *t)).or_insert(x);
                    }
                }
            }
        }
    }
    tps
}

/// The study's results document with these cells, on the checked-in report's host.
fn document(study: &Study, tps: &Tps) -> StudyResults {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study/results.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let template = doc["cells"][0].clone();
    let provenance = doc["variants"]["default"].clone();
    let base = study.base_variant();
    let mut cells = Vec::new();
    for (step, threads) in study.cells() {
        for v in &study.variants {
            let x = tps
                .get(&(v.name.clone(), step.clone(), threads))
                .copied()
                .unwrap_or(1000.0);
            for round in 0..3u64 {
                let spread = match v.name == base {
                    true => 1.0,
                    false => [0.999, 1.0, 1.001][round as usize],
                };
                let y = x * spread;
                let mut c = template.clone();
                c["round"] = json!(round);
                c["variant"] = json!(v.name);
                c["step"] = json!(step);
                c["threads"] = json!(threads);
                c["tps"] = json!(y);
                c["qps"] = json!(y);
                c["per_second_tps"] = json!([y, y, y]);
                let io = json!({"read_mb_s": y, "write_mb_s": y, "read_iops": y, "write_iops": y});
                c["per_second_device"] = json!([io, io, io]);
                c["flags"] = json!([]);
                cells.push(c);
            }
        }
    }
    doc["study"] = serde_json::to_value(study).unwrap();
    doc["cells"] = json!(cells);
    doc["cost"] = json!([]);
    doc["variants"] = study
        .variants
        .iter()
        .map(|v| (v.name.clone(), provenance.clone()))
        .collect::<serde_json::Map<_, _>>()
        .into();
    let mut steps: Vec<String> = Vec::new();
    for (step, _) in study.cells() {
        if !steps.contains(&step) {
            steps.push(step);
        }
    }
    doc["steps"] = json!(steps);
    serde_json::from_value(doc).unwrap()
}

#[test]
fn a_run_that_measured_what_the_studies_printed_agrees_with_every_figure() {
    let mut judged_any = 0;
    let mut wrong = Vec::new();
    for (name, _) in BUILTIN {
        let study = builtin(name).unwrap();
        if study.published.is_empty() {
            continue;
        }
        let tps = reproduced(&study);
        let s = Subject::study(document(&study, &tps), name);
        for j in judged(&s) {
            judged_any += 1;
            let fine = match &j.verdict {
                Verdict::Agrees | Verdict::Shown => true,
                Verdict::NotMeasured(_) => j.entry.not_measured.is_some(),
                _ => false,
            };
            if !fine {
                let points: Vec<String> = j
                    .points
                    .iter()
                    .map(|p| {
                        format!(
                            "{} {} [{}]: ours {:?}, band {:?}, {:?}",
                            p.pair.as_ref().map_or(String::new(), |x| x.label()),
                            p.step,
                            p.threads,
                            p.ours.as_ref().map(|o| o.0.ratio),
                            p.band.map(|b| (b.low, b.high)),
                            p.verdict
                        )
                    })
                    .collect();
                wrong.push(format!(
                    "{name}: '{}': {:?}\n    {}",
                    j.entry.figure,
                    j.verdict,
                    points.join("\n    ")
                ));
            }
        }
    }
    assert!(judged_any >= 100, "only {judged_any} figures judged");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
