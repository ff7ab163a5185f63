//! "Published beside ours": each figure a study file carries from a published study
//! (`[[published]]`), as new / base, beside this study's own with its 95% interval and one
//! verdict (agrees, differs, not resolved here, not measured here); where a figure differs,
//! the likely reason from what was recorded (server version, cores, regime, thread counts
//! beyond the host's CPUs). The counts go into the table at a glance and summary.json.

pub mod judge;
mod ours;
mod text;

use super::grid::{label, Table, Value};
use super::subject::{Pair, Subject};
use crate::results::published::{Figure, Published, Reading};
use crate::results::sources::{source, Source};
use judge::{Band, Ours, Verdict};
use ours::By;
use serde::Serialize;

/// One variant against its base on a step (or one pair of a ranking), with our figure.
pub struct Point {
    pub pair: Option<Pair>,
    pub step: String,
    pub threads: String,
    /// The band this point is judged against.
    pub band: Option<Band>,
    pub ours: Option<(Ours, By)>,
    pub verdict: Verdict,
}

/// One published figure: its entry, which of the entry's figures, the figure as new / base,
/// its points and its one verdict, with the likely reasons where it differs.
pub struct Judged<'a> {
    pub entry: &'a Published,
    pub source: Option<&'static Source>,
    pub figure: Option<Figure>,
    pub threads: Vec<u32>,
    pub points: Vec<Point>,
    pub verdict: Verdict,
    pub reasons: Vec<String>,
}

/// How many of a study's published figures came out which way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub agree: usize,
    pub differ: usize,
    pub not_resolved: usize,
    pub not_measured: usize,
    /// The base's own absolute values, shown beside ours and not judged.
    pub shown: usize,
    pub figures: usize,
}

impl Counts {
    /// "N agree, K differ, U not resolved, X not measured here, of M published figures", and
    /// the base's own values shown, where there are some.
    pub fn line(&self) -> String {
        let shown = match self.shown {
            0 => String::new(),
            n => format!(" ({n} the base's own, shown)"),
        };
        format!(
            "{} agree, {} differ, {} not resolved, {} not measured here, of {} published figures{shown}",
            self.agree, self.differ, self.not_resolved, self.not_measured, self.figures
        )
    }
}

/// Every figure of the study's `[[published]]` entries, judged.
pub fn judged(s: &Subject) -> Vec<Judged<'_>> {
    let mut out = Vec::new();
    for p in &s.results.study.published {
        for i in 0..p.count() {
            out.push(judge_one(s, p, i));
        }
    }
    out
}

pub fn counts(s: &Subject) -> Option<Counts> {
    let all = judged(s);
    if all.is_empty() {
        return None;
    }
    let mut c = Counts {
        figures: all.len(),
        ..Counts::default()
    };
    for j in &all {
        match j.verdict {
            Verdict::Agrees => c.agree += 1,
            Verdict::Differs(_) => c.differ += 1,
            Verdict::NotResolved => c.not_resolved += 1,
            Verdict::NotMeasured(_) => c.not_measured += 1,
            Verdict::Shown => c.shown += 1,
        }
    }
    Some(c)
}

fn judge_one<'a>(s: &Subject, p: &'a Published, i: usize) -> Judged<'a> {
    let src = source(&p.source);
    let figure = p.figure(i);
    let threads = figure.as_ref().map(|f| f.1.clone()).unwrap_or_default();
    let mut j = Judged {
        entry: p,
        source: src,
        figure: figure.as_ref().map(|f| f.0.clone()),
        threads: threads.clone(),
        points: Vec::new(),
        verdict: Verdict::NotResolved,
        reasons: Vec::new(),
    };
    if let Some(why) = &p.not_measured {
        j.verdict = Verdict::NotMeasured(why.clone());
        return j;
    }
    let Some((figure, _)) = figure else {
        j.verdict = Verdict::NotMeasured("the entry holds no figure psbench knows".into());
        return j;
    };
    let res = &s.results;
    let base = p
        .base
        .clone()
        .unwrap_or_else(|| res.study.base_variant().to_string());
    let ran = |v: &str| res.study.variants.iter().any(|x| x.name == v);
    if let Some(v) = p.variants.iter().chain([&base]).find(|v| !ran(v)) {
        j.verdict = Verdict::NotMeasured(format!(
            "this run left out variant {v} (a full_only variant runs with --full)"
        ));
        return j;
    }
    let thr = res.study.threshold;
    j.points = match &figure {
        Figure::Ranking(tiers) => ranking(s, p, tiers, thr),
        Figure::Absolute { ratio: None, .. } => {
            // What is compared are the other figures' ratios to it; it is shown, not counted.
            j.verdict = Verdict::Shown;
            return j;
        }
        _ => pairs(s, p, &base, &figure, &threads, thr),
    };
    j.verdict = judge::all(
        &j.points
            .iter()
            .map(|x| x.verdict.clone())
            .collect::<Vec<_>>(),
    );
    if matches!(j.verdict, Verdict::Differs(_)) {
        j.reasons = reasons(s, p, src, &j.points);
    }
    j
}

/// Each variant against the base on each step (or on its steps pooled): the figure's band.
fn pairs(
    s: &Subject,
    p: &Published,
    base: &str,
    figure: &Figure,
    threads: &[u32],
    thr: f64,
) -> Vec<Point> {
    let tol = p.tolerance_or(thr);
    let groups: Vec<Vec<String>> = match p.read {
        Reading::Pooled => vec![p.steps.clone()],
        Reading::Each => p.steps.iter().map(|x| vec![x.clone()]).collect(),
    };
    let mut out = Vec::new();
    for v in &p.variants {
        let pair = Pair {
            new: v.clone(),
            base: base.to_string(),
        };
        for steps in &groups {
            let label = steps.join(", ");
            let point = |threads: &[u32], band: Band| {
                let m = ours::measured(s, p.measure, &pair, steps, threads);
                let verdict = match &m {
                    Some((o, _)) => judge::band(&band, o),
                    None => Verdict::NotMeasured(format!("{v} on {label} was not measured")),
                };
                Point {
                    pair: Some(pair.clone()),
                    step: label.clone(),
                    threads: text::threads(threads),
                    band: Some(band),
                    ours: m,
                    verdict,
                }
            };
            let one = match figure {
                Figure::Ratio { value, .. } => Some(Band::about(*value, tol)),
                Figure::Range { low, high } => Some(Band::between(*low, *high, tol)),
                Figure::AtMost(x) => Some(Band::at_most(*x, tol)),
                Figure::AtLeast(x) => Some(Band::at_least(*x, tol)),
                Figure::Absolute { ratio: Some(r), .. } => Some(Band::about(*r, tol)),
                _ => None,
            };
            if let Some(band) = one {
                out.push(point(threads, band));
                continue;
            }
            // A threshold claim: no slower on one side of it, slower on the other.
            let sides: Result<Vec<(u32, bool)>, String> = match figure {
                Figure::FromThreads(from) => {
                    let run = ours::threads_run(s, v, &steps[0]);
                    match run.iter().any(|t| t >= from) {
                        true => Ok(run.iter().map(|t| (*t, t >= from)).collect()),
                        false => Err(format!("this run has no thread count of {from} or more")),
                    }
                }
                Figure::FromRate(rate) => {
                    let (best, reached) = ours::rate_reached(s, base, &steps[0], *rate);
                    match reached.is_empty() {
                        false => Ok(ours::threads_run(s, v, &steps[0])
                            .into_iter()
                            .map(|t| (t, reached.contains(&t)))
                            .collect()),
                        true => Err(format!(
                            "this host never reached {rate:.0} transactions/s: the base's best here was {best:.0}"
                        )),
                    }
                }
                _ => Ok(Vec::new()),
            };
            match sides {
                Err(why) => out.push(missing(&pair, &label, why)),
                Ok(sides) => {
                    for (t, slower) in sides {
                        let band = match slower {
                            true => Band::slower(tol),
                            false => Band::at_least(1.0, tol),
                        };
                        out.push(point(&[t], band));
                    }
                }
            }
        }
    }
    out
}

fn missing(pair: &Pair, step: &str, why: String) -> Point {
    Point {
        pair: Some(pair.clone()),
        step: step.to_string(),
        threads: String::new(),
        band: None,
        ours: None,
        verdict: Verdict::NotMeasured(why),
    }
}

/// A ranking's adjacent pairs: within a tier about the same, each of a tier costlier (slower
/// beyond the tolerance) than each of the next; throughput pooled over the figure's steps and
/// every thread count run.
fn ranking(s: &Subject, p: &Published, tiers: &[Vec<String>], thr: f64) -> Vec<Point> {
    let tol = p.tolerance_or(thr);
    let mut out = Vec::new();
    let mut judge_pair = |a: &str, b: &str, costlier: bool| {
        let pair = Pair {
            new: a.to_string(),
            base: b.to_string(),
        };
        let band = match costlier {
            true => Band::slower(tol),
            false => Band::about(1.0, tol),
        };
        for step in &p.steps {
            let m = ours::measured(s, p.measure, &pair, std::slice::from_ref(step), &[]);
            let verdict = match &m {
                Some((o, _)) => judge::band(&band, o),
                None => Verdict::NotMeasured(format!("{a} against {b} on {step} was not measured")),
            };
            out.push(Point {
                pair: Some(pair.clone()),
                step: step.clone(),
                threads: "every count, pooled".into(),
                band: Some(band),
                ours: m,
                verdict,
            });
        }
    };
    for (k, tier) in tiers.iter().enumerate() {
        for w in tier.windows(2) {
            judge_pair(&w[0], &w[1], false);
        }
        if let Some(next) = tiers.get(k + 1) {
            for a in tier {
                for b in next {
                    judge_pair(a, b, true);
                }
            }
        }
    }
    out
}

/// Why ours may differ, from what was recorded of both.
fn reasons(s: &Subject, p: &Published, src: Option<&Source>, points: &[Point]) -> Vec<String> {
    let res = &s.results;
    let mut r = Vec::new();
    let new = points
        .iter()
        .find_map(|x| x.pair.as_ref())
        .map(|x| x.new.clone());
    if let (Some(src), Some(v)) = (src, new.as_deref().and_then(|v| res.variants.get(v))) {
        let version = v.server_version.split('-').next().unwrap_or_default();
        if !src.server.contains(version) {
            r.push(format!(
                "server: {} there, {} here",
                src.server, v.server_version
            ));
        }
        match src.cores {
            Some(c) if c != res.host.cpus => {
                r.push(format!("cores: {c} there, {} here", res.host.cpus))
            }
            _ => {}
        }
    }
    if let Some(want) = &p.regime {
        let here: Vec<&str> = res
            .cells
            .iter()
            .filter(|c| Some(&c.key.variant) == new.as_ref())
            .filter_map(|c| c.regime.as_ref().map(|g| g.asked.label()))
            .collect();
        match here.first() {
            Some(h) if h != want => r.push(format!("regime: {want} there, {h} here")),
            None => r.push(format!("regime: {want} there, not checked here")),
            _ => {}
        }
    }
    let beyond = points
        .iter()
        .filter(|x| !matches!(x.verdict, Verdict::Agrees))
        .flat_map(|x| x.threads.split(", ").filter_map(|t| t.parse::<u32>().ok()))
        .filter(|t| *t > res.host.cpus)
        .max();
    if let Some(t) = beyond {
        r.push(format!("{t} threads on {} CPUs here", res.host.cpus));
    }
    if points
        .iter()
        .any(|x| matches!(x.ours, Some((_, By::Instructions))))
    {
        r.push("instructions count path length, not contention or IO".into());
    }
    r
}

/// The section: a row per point of every figure.
pub fn table(s: &Subject) -> Option<Table> {
    let all = judged(s);
    let counts = counts(s)?;
    let mut rows = Vec::new();
    for j in &all {
        let study = j
            .source
            .map_or(j.entry.source.clone(), |x| x.title.to_string());
        let published = j.figure.as_ref().map_or("—".into(), text::figure);
        let verdict = text::verdict(&j.verdict, &j.reasons);
        if j.points.is_empty() {
            // The base's own value, beside the base's best here.
            let here = (j.verdict == Verdict::Shown)
                .then(|| j.entry.variants.first().zip(j.entry.steps.first()))
                .flatten()
                .map(|(v, st)| ours::rate_reached(s, v, st, f64::INFINITY).0)
                .filter(|x| *x > 0.0);
            rows.push(vec![
                Value::Text(study.clone()),
                Value::Text(j.entry.figure.clone()),
                Value::Text(j.entry.variants.join(", ")),
                Value::Text(j.entry.steps.join(", ")),
                Value::Text(text::threads(&j.threads)),
                Value::Text(published.clone()),
                here.map_or(Value::Missing("—".into()), |x| {
                    Value::Text(format!("{x:.0} here, the base's best median"))
                }),
                Value::Text(verdict.clone()),
            ]);
        }
        for pt in &j.points {
            rows.push(vec![
                Value::Text(study.clone()),
                Value::Text(j.entry.figure.clone()),
                Value::Text(pt.pair.as_ref().map_or(String::new(), Pair::label)),
                Value::Text(pt.step.clone()),
                Value::Text(pt.threads.clone()),
                Value::Text(match &pt.band {
                    Some(b) => format!("{published}; band {}", b.text()),
                    None => published.clone(),
                }),
                pt.ours
                    .as_ref()
                    .map_or(Value::Missing("—".into()), |(o, by)| {
                        Value::Text(text::ours(o, *by))
                    }),
                Value::Text(match j.points.len() {
                    1 => verdict.clone(),
                    _ => text::verdict(&pt.verdict, &[]),
                }),
            ]);
        }
        if j.points.len() > 1 {
            if let Some(last) = rows.last_mut() {
                last[7] = Value::Text(format!(
                    "{}; the figure: {verdict}",
                    text::point_word(&j.points)
                ));
            }
        }
    }
    Some(Table {
        id: "published".into(),
        title: "Published beside ours".into(),
        note: format!(
            "Each figure this study carries from a published study, as new / base (converted where the study printed base / new), beside ours with its 95% interval: {}. Each figure is a band: its value or range widened by ±{:.0}% (the study's threshold, unless the entry gives its own tolerance and why), or one side of a one-sided claim. A figure agrees when our interval lies inside its band, differs when it lies wholly outside (by how much from the band's nearer end, and the likely reason), and is not resolved here otherwise. A ranking is judged by its adjacent pairs (costlier: slower beyond the tolerance), a threshold claim on both sides of it; the base's own absolute values are shown, not judged. Where a step was only counted, ours is the throughput the instructions predict.",
            counts.line(),
            s.threshold() * 100.0
        ),
        columns: vec![
            label("published study"),
            label("figure"),
            label("variant / base"),
            label("step"),
            label("threads"),
            label("published, new / base"),
            label("ours [95%]"),
            label("verdict"),
        ],
        rows,
        legend: Vec::new(),
        when_empty: String::new(),
    })
}

/// A line per published study the figures come from: how many agree and differ, and the
/// figure that differs most.
pub fn findings(s: &Subject) -> Vec<String> {
    let all = judged(s);
    let mut keys: Vec<&str> = Vec::new();
    for j in &all {
        if !keys.contains(&j.entry.source.as_str()) {
            keys.push(&j.entry.source);
        }
    }
    let mut out = Vec::new();
    for key in keys {
        let of: Vec<&Judged> = all.iter().filter(|j| j.entry.source == key).collect();
        let n = |f: fn(&Verdict) -> bool| of.iter().filter(|j| f(&j.verdict)).count();
        let (agree, differ) = (
            n(|v| *v == Verdict::Agrees),
            n(|v| matches!(v, Verdict::Differs(_))),
        );
        let (open, unmeasured) = (
            n(|v| *v == Verdict::NotResolved),
            n(|v| matches!(v, Verdict::NotMeasured(_))),
        );
        let name = source(key).map_or(key.to_string(), Source::cited);
        let most = of
            .iter()
            .filter_map(|j| match j.verdict {
                Verdict::Differs(by) => Some((by, j)),
                _ => None,
            })
            .max_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
        let worst = most.map_or(String::new(), |(by, j)| {
            format!(
                "; most: {} ({}{}), ours {:+.1}% from it{}",
                j.entry.figure,
                j.figure.as_ref().map_or("—".into(), text::figure),
                crate::results::published::at_threads(&j.threads),
                by * 100.0,
                text::likely(&j.reasons)
            )
        });
        out.push(format!(
            "Beside {name}: {agree} of {} figures agree, {differ} differ, {open} not resolved, {unmeasured} not measured here{worst}.",
            of.len()
        ));
    }
    out
}
