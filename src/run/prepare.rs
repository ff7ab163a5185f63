//! Before a study measures anything: every check that can refuse it (so that a refused study
//! is one line and writes nothing), then its results document (new, or the one resumed) with
//! the study resolved as it will run and the notes a reader needs about it.

use super::context::Request;
use crate::results::study::{Mode, Study};
use crate::results::{Sharding, StudyResults};
use anyhow::{Context, Result};
use std::time::{SystemTime, UNIX_EPOCH};

pub fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Everything that refuses a study before it writes anything. A resumed study is checked
/// again: it started on what may have been another machine.
pub fn check(study: &Study) -> Result<()> {
    crate::study::overrides::check_client_limits(study)?;
    super::placement::check(study)?;
    // A tree that is no server, or a scenario it lacks.
    crate::engines::trees::check(study)?;
    crate::engines::from_source::check_countable(&crate::study::measures::cost_variants(study))
}

/// The document the study writes into, saved: its study resolved (builds to paths, rounds a
/// resume added), its steps, and the notes on what it cannot measure here. `OUT/study.toml`
/// holds the study as it runs, before its builds resolve to paths, so that `psbench run
/// OUT/study.toml` runs it again.
pub fn document(req: &Request) -> Result<StudyResults> {
    let mut res = new_or_resumed(req)?;
    res.finished_unix = None;
    // `--locate` on a resumed study asks for it after the fact.
    res.study.locate |= req.study.locate;
    // `--resume --rounds N` adds rounds (the command line refused fewer): the document says so.
    if req.study.rounds > res.study.rounds {
        let note = format!(
            "rounds raised from {} to {} when resumed",
            res.study.rounds, req.study.rounds
        );
        say(&mut res, note);
        res.study.rounds = req.study.rounds;
        res.sharding.definition_sha256 = definition_sha256(&res.study)?;
    }
    if req.study.mode == Mode::Both {
        for v in &req.study.variants {
            if let Some(why) = crate::engines::from_source::uncountable(v) {
                let note = format!(
                    "{} is measured in throughput only: {why}, so cost mode cannot count it here",
                    v.name
                );
                say(&mut res, note);
            }
        }
    }
    crate::study::study_toml::write(&req.out_dir, &res.study)?;
    crate::engines::variant::resolve_builds(&mut res.study)?;
    crate::engines::variant::check_scenarios(&res.study)?;
    if res.steps.is_empty() {
        for (s, _) in res.study.cells() {
            if !res.steps.contains(&s) {
                res.steps.push(s);
            }
        }
    }
    res.save(&req.out_dir)?;
    Ok(res)
}

/// A note said once, on screen and in the document.
fn say(res: &mut StudyResults, note: String) {
    if !res.notes.contains(&note) {
        eprintln!("note: {note}");
        res.notes.push(note);
    }
}

/// SHA-256 of the study as given: shards of one study share it, whatever paths their hosts
/// resolve its releases to.
fn definition_sha256(study: &Study) -> Result<String> {
    use sha2::{Digest, Sha256};
    let text = serde_json::to_string(study).context("writing the study definition")?;
    Ok(format!("{:x}", Sha256::digest(text.as_bytes())))
}

/// A new results document, or the one in `out_dir` when resuming.
fn new_or_resumed(req: &Request) -> Result<StudyResults> {
    if req.resume {
        let r = StudyResults::load(&req.out_dir)?;
        eprintln!(
            "resuming {} in {}: {} cell(s) and {} cost measurement(s) already done",
            r.study.name,
            req.out_dir.display(),
            r.cells.len(),
            r.cost.len()
        );
        return Ok(r);
    }
    let mut res = StudyResults::new(req.study.clone(), &req.origin);
    res.host = crate::probes::host::current();
    res.started_unix = now_unix();
    res.seed = crate::driver::resolve_seed(0);
    res.sharding = Sharding {
        definition_sha256: definition_sha256(&req.study)?,
        shard: req.shard,
        ..Sharding::default()
    };
    Ok(res)
}
