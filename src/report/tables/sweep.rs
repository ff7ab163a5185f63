//! A sweep's releases side by side (docs/study-file.md#sweeps): per step, each release's
//! instructions per unit of work with the step from the release before it, and where the
//! counts changed (stats::changes::of_counts).

use crate::report::grid::{column, label, Kind, Table, Value};
use crate::report::subject::Subject;
use crate::results::sweep::{sweeps, templates};
use crate::stats::changes::of_counts;

/// The table; none for a study without a sweep.
pub fn table(s: &Subject) -> Option<Table> {
    let all = sweeps(&s.results);
    if all.is_empty() {
        return None;
    }
    let mut rows = Vec::new();
    for sw in &all {
        let changes = of_counts(&sw.ranges());
        for (i, (variant, c)) in sw.points.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| sw.points[j].1.ir_per_txn);
            let changed = changes.iter().any(|ch| ch.index == i);
            rows.push(vec![
                Value::Text(sw.sweep.clone()),
                Value::Text(sw.step.clone()),
                Value::Text(if located(&s.results, variant) {
                    format!("{variant} (located)")
                } else {
                    variant.to_string()
                }),
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
        note: "Each release of a sweep in release order, its instructions per unit of work (cost mode) and the ratio to the release before it. \"change\" marks the first release of a new level: at least 1% from the mean since the last change and outside every earlier release's repeats (docs/history.md#change-points); \"(located)\" marks a release measured to locate a change (docs/study-file.md#locating-a-change).".into(),
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

/// A release bisection added to locate a change.
fn located(res: &crate::results::StudyResults, variant: &str) -> bool {
    res.study
        .variants
        .iter()
        .any(|v| v.name == variant && v.located)
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
        let located = res
            .study
            .variants
            .iter()
            .filter(|v| v.located && v.sweep.as_deref() == Some(sw.sweep.as_str()))
            .count();
        for c in &of_counts(&sw.ranges()) {
            let (before, after) = (sw.points[c.index - 1].0, sw.points[c.index].0);
            let mut line = format!(
                "{} {}: {:+.1}% instructions per {} between {before} and {after} ({:.0} before, {:.0} from {after} on).",
                sw.sweep,
                sw.step,
                c.magnitude * 100.0,
                sw.unit,
                c.mean_before,
                c.mean_after,
            );
            // Bisection ran until no release between a change's sides was left unmeasured.
            if res.study.locate && res.finished_unix.is_some() {
                line.push_str(&format!(
                    " Located: {after} is the first release carrying it of those psbench can fetch and run here ({located} release(s) of the sweep measured by bisection)."
                ));
            }
            out.push(line);
        }
    }
    out.extend(between_sweeps(res));
    out
}

/// Two sweeps over the same releases (a setting off and on): the second against the first on
/// each release, per step, so that a reader sees whether what the setting costs changed.
fn between_sweeps(res: &crate::results::StudyResults) -> Vec<String> {
    let all = templates(res);
    let release = |name: &str| res.study.release_of(name).map(str::to_string);
    let mut out = Vec::new();
    for (i, (base, base_members)) in all.iter().enumerate() {
        for (new, new_members) in &all[i + 1..] {
            for (step, unit) in sweeps(res)
                .iter()
                .filter(|sw| sw.sweep == *base)
                .map(|sw| (sw.step.clone(), sw.unit))
            {
                let mut each = Vec::new();
                for b in base_members {
                    let Some(r) = release(b) else { continue };
                    let n = new_members
                        .iter()
                        .find(|n| release(n).as_deref() == Some(&r));
                    let count = |v: &str| {
                        res.cost_for(v, &step)
                            .filter(|c| c.ok && c.ir_per_txn > 0.0)
                            .map(|c| c.ir_per_txn)
                    };
                    if let Some((x, y)) = n.and_then(|n| count(n)).zip(count(b)) {
                        let version = r.split_once('-').map_or(r.as_str(), |(_, v)| v);
                        each.push(format!("{:+.1}% on {version}", (x / y - 1.0) * 100.0));
                    }
                }
                if each.len() >= 2 {
                    out.push(format!(
                        "{new} against {base} on the same release, instructions per {unit} ({step}): {}.",
                        each.join(", ")
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::StudyResults;

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
        // After bisection added `default` to locate the change, in a finished study.
        let mut res = s.results.clone();
        res.study.locate = true;
        res.study.variants[1].located = true;
        assert!(res.finished_unix.is_some());
        let s = Subject::study(res, "x");
        assert!(findings(&s)[0].ends_with(
            "from default on). Located: default is the first release carrying it of those psbench can fetch and run here (1 release(s) of the sweep measured by bisection)."
        ));
        let t = table(&s).unwrap();
        assert!(matches!(&t.rows[1][2], Value::Text(n) if n == "default (located)"));
    }
}
