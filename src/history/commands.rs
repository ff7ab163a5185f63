//! What each `psbench history` command does with the store: import documents, show series,
//! check the newest points, accept a regression.

use super::analysis::{self, CheckVerdict, Options};
use super::store::History;
use super::text;
use crate::error::usage;
use crate::results::StudyResults;
use anyhow::Result;
use std::path::Path;

/// Add the documents at `dirs` (results directories or results.json files).
pub fn import(history: &Path, dirs: &[&Path]) -> Result<String> {
    let mut out = String::new();
    for dir in dirs {
        let doc = StudyResults::load(dir)?;
        if doc.sharding.shard.is_some() {
            out += &format!(
                "{}: one shard of a study, left out (`psbench merge` its shards, then import the merged document)\n",
                dir.display()
            );
            continue;
        }
        out += &super::record(&doc, dir, history)?;
        out.push('\n');
    }
    Ok(out)
}

/// One series written for Apache Otava into `dir` (history::otava); what to run.
pub fn otava(history: &Path, series: i64, dir: &Path) -> Result<String> {
    let h = History::existing(history)?;
    let Some(s) = h.one(series)? else {
        return Err(usage(format!(
            "the history {} has no series {series} (`psbench history` lists them)",
            history.display()
        )));
    };
    let points = h.points(series)?;
    let config = super::otava::write(dir, &s, &points)?;
    Ok(format!(
        "series {series}: {} points for Otava; run: otava analyze {} --config-file {}\n",
        points.len(),
        super::otava::test_name(&s),
        config.display()
    ))
}

/// The series list, one series, or one series as CSV.
pub fn show(history: &Path, series: Option<i64>, csv: bool, o: &Options) -> Result<String> {
    let h = History::existing(history)?;
    let Some(id) = series else {
        if csv {
            return Err(usage("--csv exports one series: give its number"));
        }
        return Ok(format!(
            "history {}\n{}",
            history.display(),
            text::list(&h, o)?
        ));
    };
    let Some(s) = h.one(id)? else {
        return Err(usage(format!(
            "the history {} has no series {id} (`psbench history` lists them)",
            history.display()
        )));
    };
    let points = h.points(id)?;
    if csv {
        text::csv(&points)
    } else {
        Ok(text::show(&s, &points, o))
    }
}

/// The check of every series' newest point: the lines to print and the regressions found.
/// With `replay`, each earlier point is also checked against the points before it, as a gate
/// run after each point would have; only the newest decides the regressions counted.
pub fn check(history: &Path, o: &Options, replay: bool) -> Result<(String, usize)> {
    let h = History::existing(history)?;
    let (mut out, mut checked, mut regressions, mut improvements) = (String::new(), 0, 0, 0);
    let mut every = h.all_points()?;
    for s in h.series()? {
        let points = every.remove(&s.id).unwrap_or_default();
        if replay {
            for k in 2..points.len() {
                let earlier = &points[..k];
                let line = analysis::check(&s.key, earlier, o)
                    .and_then(|c| text::check_line(&s, earlier, &c));
                if let Some(line) = line {
                    out += &format!("at the time: {line}\n");
                }
            }
        }
        // A change placed but not yet called is said, and fails nothing.
        for c in analysis::changes(&s.key, &points, o)
            .iter()
            .filter(|c| !c.called())
        {
            out += &format!(
                "pending: series {}: {}\n",
                s.id,
                text::change_line(c, &points)
            );
        }
        let Some(c) = analysis::check(&s.key, &points, o) else {
            continue;
        };
        checked += 1;
        match c.verdict {
            CheckVerdict::Regression => regressions += 1,
            CheckVerdict::Improvement => improvements += 1,
            CheckVerdict::Unchanged | CheckVerdict::NoInterval | CheckVerdict::Accepted => {}
        }
        if let Some(line) = text::check_line(&s, &points, &c) {
            out += &line;
            out.push('\n');
        }
    }
    out += &format!(
        "{checked} series with an earlier point checked in {}: {regressions} regression{}, {improvements} improvement{}\n",
        history.display(),
        if regressions == 1 { "" } else { "s" },
        if improvements == 1 { "" } else { "s" },
    );
    Ok((out, regressions))
}

/// Accept point `point` of series `series` as the new level.
pub fn accept(history: &Path, series: i64, point: i64, who: &str, why: &str) -> Result<String> {
    let mut h = History::existing(history)?;
    if !h.accept(series, point, who, why)? {
        return Err(usage(format!(
            "series {series} has no point {point} (`psbench history {series}` lists its points)"
        )));
    }
    Ok(format!(
        "point {point} of series {series} accepted by {who}: the check compares with the level it starts"
    ))
}
