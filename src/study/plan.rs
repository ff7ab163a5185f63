//! `psbench run STUDY --plan`: what a study will do — the servers it fetches or builds, its
//! data, its cells per mode, its rounds — and how long it should take, without starting
//! anything.

use super::measures::{cost_variants, throughput_variants};
use crate::results::study::{Mode, Schedule, Study};
use crate::results::{CountTime, ShardInfo, StudyResults};
use std::fmt::Write;

/// Seconds a model of the run gives; only the ratio of two studies' models is used when the
/// study carries a measured time. The constants are this machine's (2-core VM, 2026-11):
/// a server's start, copy of its datadir and stop per turn; a cell's own overhead (an
/// alternating round has none: its slices follow each other on live servers); loading
/// 100,000 sysbench rows. A count's time is the engine's (`engines::plan::count_estimate`).
const TURN_S: f64 = 6.0;
const CELL_OVERHEAD_S: f64 = 1.0;
const LOAD_PER_100K_ROWS_S: f64 = 2.0;
const LOAD_FIXED_S: f64 = 10.0;

/// What `--plan` is asked about: the study as it would run, the study as its file defines it
/// (what a measured time is for), one shard's share, or the document of a study to resume.
pub struct Plan<'a> {
    pub study: &'a Study,
    pub origin: &'a str,
    pub as_defined: &'a Study,
    pub shard: Option<&'a ShardInfo>,
    pub done: Option<&'a StudyResults>,
    /// The counts this host's history holds: what a count of each engine and step takes here.
    pub counts_here: &'a [CountTime],
}

impl Plan<'_> {
    /// The plan as printed: one block of lines, ending with the expected time.
    pub fn render(&self) -> String {
        let mut s = render(self.study, self.origin, self.counts_here);
        let share = self.share(&mut s);
        let first: f64 = crate::engines::plan::servers(self.study)
            .iter()
            .map(|v| v.seconds_first)
            .sum();
        let _ = writeln!(
            s,
            "{}",
            expected_line(self.study, self.as_defined, self.counts_here, share, first)
        );
        s
    }

    /// The share of the study's work this run does (a shard's rounds, or what a resumed
    /// study has left), said in `s`, weighted by the model.
    fn share(&self, s: &mut String) -> f64 {
        let study = self.study;
        let total_cells = study.rounds as f64
            * throughput_variants(study).len() as f64
            * study.throughput_cells().len() as f64;
        let total_counts = cost_counts(study) as f64;
        let (cells, counts) = match (self.done, self.shard) {
            (Some(res), _) => {
                let (c, k) = (
                    super::measures::cells_todo(study, res) as f64,
                    super::measures::cost_results_todo(study, res) as f64,
                );
                let _ = writeln!(
                    s,
                    "left to do: {c} of {total_cells} throughput cell(s) and {k} of {total_counts} count(s)"
                );
                (c, k)
            }
            (None, Some(sh)) => {
                let rounds = sh.rounds(study.rounds);
                let c = total_cells * rounds.len() as f64 / study.rounds.max(1) as f64;
                let _ = writeln!(
                    s,
                    "shard {}: {}, so {c} of the {total_cells} throughput cell(s){}",
                    sh.describe(),
                    shard_rounds_text(&rounds, study.rounds),
                    if sh.runs_cost() {
                        ", and cost mode"
                    } else {
                        ", no cost mode"
                    }
                );
                (c, if sh.runs_cost() { total_counts } else { 0.0 })
            }
            (None, None) => return 1.0,
        };
        let whole = model_seconds(study, self.counts_here);
        let cost_s = cost_seconds(study, self.counts_here);
        let count_s = cost_s / total_counts.max(1.0);
        let cell_s = if total_cells > 0.0 {
            (whole - cost_s).max(0.0) / total_cells
        } else {
            0.0
        };
        if whole > 0.0 {
            ((cells * cell_s + counts * count_s) / whole).min(1.0)
        } else {
            0.0
        }
    }
}

/// A shard's rounds as docs/sharding.md numbers them (from 0), with the study's range, so
/// that `--shard 1/2` reads as the rule "r mod N = K" it follows.
pub fn shard_rounds_text(rounds: &[u32], of: u32) -> String {
    let shown: Vec<String> = rounds.iter().map(|r| r.to_string()).collect();
    let range = match of {
        0 | 1 => "round 0".to_string(),
        n => format!("rounds 0–{}", n - 1),
    };
    format!(
        "round(s) {} of the study's {range} (numbered from 0)",
        shown.join(", ")
    )
}

fn render(study: &Study, origin: &str, here: &[CountTime]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "plan of study {} ({origin}): nothing is fetched, built or started",
        study.name
    );
    let servers = crate::engines::plan::servers(study);
    let _ = writeln!(s, "servers ({}):", servers.len());
    for srv in &servers {
        let _ = writeln!(s, "  {}; variants: {}", srv.line, srv.variants.join(", "));
    }
    let (tables, rows) = study.dataset_size();
    let mut data = if study.dataset.is_own() {
        let mut d = format!("your own ({})", study.dataset.own_words());
        if study.dataset.tables.is_some() {
            let _ = write!(d, " and {tables} sysbench table(s) × {rows} rows");
        }
        d
    } else {
        format!("{tables} table(s) × {rows} rows")
    };
    if let Some(scale) = study.dataset.pgbench_scale {
        let _ = write!(data, ", pgbench scale {scale}");
    }
    let _ = writeln!(
        s,
        "dataset: {data}, loaded once per server ({}) or taken from the dataset cache when loaded before",
        servers.len()
    );
    let counts = cost_counts(study);
    if counts > 0 {
        let _ = writeln!(
            s,
            "cost mode: {counts} count(s) under callgrind ({} variant(s) × {} step(s): {}){}",
            cost_variants(study).len(),
            study.cost_steps().len(),
            study
                .cost_steps()
                .iter()
                .map(|w| w.label())
                .collect::<Vec<_>>()
                .join(", "),
            if study.locate {
                "; then each change a sweep shows is located by bisection, a few releases' counts more"
            } else {
                ""
            }
        );
        for line in count_lines(study, here) {
            let _ = writeln!(s, "  {line}");
        }
    }
    let per_turn = study.throughput_cells();
    let variants = throughput_variants(study).len();
    if variants > 0 && !per_turn.is_empty() {
        let cells = study.rounds as usize * variants * per_turn.len();
        // A workload that ends by itself (a replay's log) runs whole, unwarmed.
        let whole = study.workloads.iter().all(|w| {
            matches!(study.runs_of(w), Ok(crate::workloads::kinds::Runs::Transactions(wl)) if wl.ends_by_itself())
        });
        let timing = if whole {
            "each runs its whole log, unwarmed".to_string()
        } else {
            format!(
                "{} s warm-up and {} s measured each",
                study.warmup, study.duration
            )
        };
        let _ = writeln!(
            s,
            "throughput: {cells} cell(s) = {} round(s) × {variants} variant(s) × {} cell(s) ({}), {timing}, schedule {}",
            study.rounds,
            per_turn.len(),
            describe_cells(&per_turn),
            match study.schedule {
                Schedule::Turns => "turns",
                Schedule::Alternate => "alternate",
            }
        );
    }
    if study.mode != Mode::Cost && study.rounds < 3 {
        let _ = writeln!(
            s,
            "note: {} round(s): a verdict needs at least 3, so every throughput and CPU comparison will say not resolved",
            study.rounds
        );
    }
    s
}

/// `point_select at 1, 4 threads; read_only at 1, 4 threads`.
fn describe_cells(cells: &[(String, u32)]) -> String {
    let mut steps: Vec<(String, Vec<u32>)> = Vec::new();
    for (l, t) in cells {
        match steps.iter_mut().find(|(x, _)| x == l) {
            Some((_, ts)) => ts.push(*t),
            None => steps.push((l.clone(), vec![*t])),
        }
    }
    let shown: Vec<String> = steps
        .iter()
        .take(6)
        .map(|(l, ts)| {
            let ts: Vec<String> = ts.iter().map(|t| t.to_string()).collect();
            format!("{l} at {}", ts.join(", "))
        })
        .collect();
    let more = steps.len().saturating_sub(6);
    if more > 0 {
        format!("{}; and {more} more step(s)", shown.join("; "))
    } else {
        shown.join("; ")
    }
}

/// What a count takes, with its source, once per estimate: `counts of point_select, read_only:
/// about 18 s each (psbench's default for MariaDB …); variants: ps_off, default, …`.
fn count_lines(study: &Study, here: &[CountTime]) -> Vec<String> {
    // (estimate, its steps, its variants), in the study's order.
    let mut lines: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
    for (v, label, events) in counts(study) {
        let e = crate::engines::plan::count_estimate(v, &label, events, here);
        let key = format!("about {:.0} s each ({})", e.seconds, e.source);
        let i = match lines.iter().position(|(k, _, _)| *k == key) {
            Some(i) => i,
            None => {
                lines.push((key, Vec::new(), Vec::new()));
                lines.len() - 1
            }
        };
        let (_, steps, names) = &mut lines[i];
        if !steps.contains(&label) {
            steps.push(label);
        }
        if !names.contains(&v.name) {
            names.push(v.name.clone());
        }
    }
    let few = |xs: &[String]| match xs.len() {
        n if n > 4 => format!("{} and {} more", xs[..3].join(", "), n - 3),
        _ => xs.join(", "),
    };
    lines
        .into_iter()
        .map(|(key, steps, names)| {
            format!(
                "counts of {}: {key}; variants: {}",
                few(&steps),
                few(&names)
            )
        })
        .collect()
}

/// Seconds of cost mode's counts: each variant's steps at what a count of its engine and step
/// takes here.
fn cost_seconds(study: &Study, here: &[CountTime]) -> f64 {
    counts(study)
        .into_iter()
        .map(|(v, label, events)| {
            crate::engines::plan::count_estimate(v, &label, events, here).seconds
        })
        .sum()
}

/// Each count cost mode makes: its variant, its step, and the transactions of its largest
/// window (none for a sequence's steps, counted per row at their own sizes).
fn counts(study: &Study) -> Vec<(&crate::results::study::Variant, String, Option<u32>)> {
    let mut out = Vec::new();
    for v in cost_variants(study) {
        for w in study.cost_steps() {
            let events = match study.counted_of(w) {
                Ok(crate::workloads::kinds::Counted::Transactions(_)) => w
                    .cost_events
                    .as_ref()
                    .unwrap_or(&study.cost.events)
                    .iter()
                    .copied()
                    .max(),
                _ => None,
            };
            for label in study.cost_labels(w) {
                out.push((v, label, events));
            }
        }
    }
    out
}

fn cost_counts(study: &Study) -> usize {
    let per_variant: usize = study
        .cost_steps()
        .iter()
        .map(|w| study.cost_labels(w).len())
        .sum();
    cost_variants(study).len() * per_variant
}

/// The expected time: the study's measured time scaled by how much the changes made to it
/// change the model, or the model alone for a study never timed.
fn expected_line(
    study: &Study,
    as_defined: &Study,
    here: &[CountTime],
    share: f64,
    first_s: f64,
) -> String {
    let model = model_seconds(study, here);
    let (minutes, how) = match as_defined.expected_minutes {
        Some(m) => {
            let defined = model_seconds(as_defined, here);
            let ratio = if defined > 0.0 { model / defined } else { 1.0 };
            if (ratio - 1.0).abs() < 1e-9 {
                (m, "as measured for this study on a 2-core VM".to_string())
            } else {
                (
                    m * ratio,
                    format!("its measured {m:.0} min on a 2-core VM × {ratio:.2}, the change the overrides make to its cells"),
                )
            }
        }
        None => (
            model / 60.0,
            "from its cells' durations, server starts and counts; this study was never timed"
                .to_string(),
        ),
    };
    if share <= 0.0 {
        return "expected time: none, nothing is left to do".into();
    }
    let (minutes, how) = if share < 1.0 {
        (
            minutes * share,
            format!("{how}, × {share:.2} for the share this run does"),
        )
    } else {
        (minutes, how)
    };
    let first = if first_s > 0.0 {
        let first = match first_s < 60.0 {
            true => format!("{first_s:.0} s"),
            false => format!("{:.0} min", first_s / 60.0),
        };
        format!(", and about {first} more first to fetch or build its servers")
    } else {
        String::new()
    };
    format!("expected time: {} ({how}){first}", minutes_text(minutes))
}

fn minutes_text(m: f64) -> String {
    if m < 1.0 {
        "less than 1 min".into()
    } else {
        format!("about {m:.0} min")
    }
}

/// One throughput round by the model: every variant's server started and its cells run. An
/// alternating round's slices follow one another on live servers with no cell's overhead
/// between them: the default study's rounds took 115.5–116.8 s (2026-12-07), where this gives
/// 126 s and the turns' model 153 s.
pub fn round_seconds(study: &Study) -> f64 {
    let variants = throughput_variants(study).len() as f64;
    let cell_overhead = match study.schedule {
        Schedule::Turns => CELL_OVERHEAD_S,
        Schedule::Alternate => 0.0,
    };
    variants * (TURN_S + study.turn_seconds(cell_overhead))
}

/// The model: throughput turns and cells, cost counts, data loads.
fn model_seconds(study: &Study, here: &[CountTime]) -> f64 {
    let throughput = study.rounds as f64 * round_seconds(study);
    let (tables, rows) = study.dataset_size();
    let load = LOAD_FIXED_S + LOAD_PER_100K_ROWS_S * (tables as f64 * rows as f64) / 1e5;
    let servers = crate::engines::plan::servers(study).len() as f64;
    throughput + cost_seconds(study, here) + servers * load
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alternating_round_has_no_cells_overhead_and_turns_keep_theirs() {
        // The default study: 3 variants, 9 cells of 1 s warm-up and 3 s measured.
        let mut s = crate::study::builtin::builtin("pfs-overhead").unwrap();
        assert_eq!(s.schedule, Schedule::Alternate);
        let alternate = round_seconds(&s);
        assert!(
            (alternate - 3.0 * (TURN_S + 9.0 * 4.0)).abs() < 1e-9,
            "{alternate}"
        );
        s.schedule = Schedule::Turns;
        let turns = round_seconds(&s);
        assert!((turns - 3.0 * (TURN_S + 9.0 * 5.0)).abs() < 1e-9, "{turns}");
    }

    #[test]
    fn the_counts_time_comes_from_this_hosts_counts_of_the_engine() {
        let s = crate::study::builtin::builtin("mysql-sweep").unwrap();
        let defaults = cost_seconds(&s, &[]);
        let counts = cost_counts(&s) as f64;
        // The study's own windows: 1500 point selects, 150 read-only transactions.
        let mysql = |step: &str, seconds, events| CountTime {
            engine: "mysql".into(),
            step: step.into(),
            seconds,
            events: Some(events),
        };
        let here = [
            mysql("point_select", 50.0, 1500),
            mysql("read_only", 35.0, 75),
        ];
        // Half the counts are point selects, half read-only (twice the transactions measured).
        let measured = cost_seconds(&s, &here);
        assert!((measured / counts - 60.0).abs() < 1e-9, "{measured}");
        assert!(defaults > 0.0 && defaults != measured, "{defaults}");
        let lines = count_lines(&s, &here);
        assert!(
            lines.iter().any(|l| l.starts_with(
                "counts of read_only: about 70 s each (the median of 1 count(s) of MySQL's read_only in this host's history, scaled to 150 transactions)"
            )),
            "{lines:?}"
        );
    }
}
