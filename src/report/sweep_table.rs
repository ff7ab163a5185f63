//! A sweep's releases side by side (docs/study-file.md#sweeps): per step, each release's
//! instructions per unit of work with the step from the release before it, and where the
//! counts changed by the history's rule for counts (at least 1% from the level since the last
//! change, and clear of those releases' repeats).

use super::grid::{column, label, Kind, Table, Value};
use super::subject::Subject;
use crate::results::{CostResult, StudyResults};
use crate::stats::changes::{precise, Change, Observation, Options};

/// One sweep's counts on one step, in release order.
pub struct SweepStep<'a> {
    pub sweep: String,
    pub step: String,
    pub unit: &'static str,
    /// Each release's variant and its count.
    pub points: Vec<(&'a str, &'a CostResult)>,
    pub changes: Vec<Change>,
}

/// Each sweep's template name with its variants, in release order.
fn templates(res: &StudyResults) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for v in &res.study.variants {
        let Some(t) = v.sweep.as_deref() else {
            continue;
        };
        match out.iter_mut().find(|(name, _)| *name == t) {
            Some((_, members)) => members.push(&v.name),
            None => out.push((t, vec![&v.name])),
        }
    }
    out
}

/// Every sweep's steps with their changes.
pub fn sweeps(res: &StudyResults) -> Vec<SweepStep<'_>> {
    let mut out = Vec::new();
    for (t, members) in templates(res) {
        for step in super::cost_table::steps(res) {
            let points: Vec<(&str, &CostResult)> = members
                .iter()
                .filter_map(|m| {
                    res.cost_for(m, &step)
                        .filter(|c| c.ok && !c.unstable)
                        .map(|c| (*m, c))
                })
                .collect();
            let Some((_, first)) = points.first() else {
                continue;
            };
            let obs: Vec<Observation> = points.iter().map(|(_, c)| observation(c)).collect();
            out.push(SweepStep {
                sweep: t.to_string(),
                step: step.clone(),
                unit: first.unit.name(),
                changes: precise(&obs, &Options::PRECISE),
                points,
            });
        }
    }
    out
}

/// A count with the range of its repeated estimates.
fn observation(c: &CostResult) -> Observation {
    let (low, high) = c.repeat_range();
    Observation {
        value: c.ir_per_txn,
        low,
        high,
    }
}

/// The table; none for a study without a sweep.
pub fn table(s: &Subject) -> Option<Table> {
    let all = sweeps(&s.results);
    if all.is_empty() {
        return None;
    }
    let mut rows = Vec::new();
    for sw in &all {
        for (i, (variant, c)) in sw.points.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| sw.points[j].1.ir_per_txn);
            let changed = sw.changes.iter().any(|ch| ch.index == i);
            rows.push(vec![
                Value::Text(sw.sweep.clone()),
                Value::Text(sw.step.clone()),
                Value::Text(variant.to_string()),
                Value::Text(sw.unit.to_string()),
                Value::Number(c.ir_per_txn),
                prev.map_or(Value::Text(String::new()), |p| {
                    Value::Ratio(c.ir_per_txn / p)
                }),
                Value::Text(if changed {
                    "change".into()
                } else {
                    String::new()
                }),
            ]);
        }
    }
    Some(Table {
        id: "sweep".into(),
        title: "Release sweep: instructions per release".into(),
        note: "Each release of a sweep in release order, its instructions per unit of work (cost mode) and the ratio to the release before it. \"change\" marks the first release of a new level: at least 1% from the mean since the last change and outside every earlier release's repeats (docs/history.md#change-points).".into(),
        columns: vec![
            label("sweep"),
            label("step"),
            label("release"),
            label("per"),
            column("instructions", Kind::Number),
            column("to the release before", Kind::Ratio),
            label("level"),
        ],
        rows,
        legend: Vec::new(),
        when_empty: String::new(),
    })
}

/// A finding per change: `pg select_only: +6.1% instructions per transaction between pg-15.2.0 and pg-15.3.0 (…)`.
pub fn findings(s: &Subject) -> Vec<String> {
    let mut out = Vec::new();
    let res = &s.results;
    for (t, members) in templates(res) {
        let mut channels: Vec<String> = Vec::new();
        for m in members {
            let c = res.cost_provenance(m).and_then(|p| p.build.as_ref());
            if let Some(c) = c.map(|b| b.origin.channel()) {
                if !channels.contains(&c) {
                    channels.push(c);
                }
            }
        }
        if channels.len() > 1 {
            out.push(format!(
                "The releases of sweep {t} come from {} channels ({}): compilers and build options differ as well as the release.",
                channels.len(),
                channels.join("; ")
            ));
        }
    }
    for sw in sweeps(&s.results) {
        for c in &sw.changes {
            let (before, after) = (sw.points[c.index - 1].0, sw.points[c.index].0);
            out.push(format!(
                "{} {}: {:+.1}% instructions per {} between {before} and {after} ({:.0} before, {:.0} from {after} on).",
                sw.sweep,
                sw.step,
                c.magnitude * 100.0,
                sw.unit,
                c.mean_before,
                c.mean_after,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_shows_each_release_and_calls_its_steps() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study");
        let mut res = StudyResults::load(&dir).unwrap();
        assert!(table(&Subject::study(res.clone(), "x")).is_none());
        // The checked-in study's two variants as two points of one sweep.
        for v in &mut res.study.variants {
            v.sweep = Some("ps".into());
        }
        let s = Subject::study(res, "x");
        assert_eq!(table(&s).unwrap().rows.len(), 4);
        assert_eq!(
            findings(&s),
            [
                "ps point_select: +9.2% instructions per transaction between ps_off and default (41697 before, 45539 from default on).",
                "ps read_only: +2.6% instructions per transaction between ps_off and default (2221320 before, 2278077 from default on).",
            ]
        );
    }
}
