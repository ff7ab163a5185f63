//! Command-line overrides of a study file (`--time`, `--rounds`, `--threads`, …).

use crate::error::usage;
use crate::results::study::{Mode, Schedule, Study};
use anyhow::Result;

#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub time: Option<f64>,
    pub warmup: Option<f64>,
    pub rounds: Option<u32>,
    pub threads: Option<Vec<u32>>,
    pub max_threads: Option<u32>,
    pub variants: Option<Vec<String>>,
    pub workloads: Option<Vec<String>>,
    pub cost_only: bool,
    pub full: bool,
    /// Profile the measured windows (`--profile`), with the study's `[profile]` selection.
    pub profile: bool,
    /// The variants' trees (`--basedir`).
    pub basedirs: Vec<super::basedirs::Basedir>,
}

impl Overrides {
    pub fn apply(&self, s: &mut Study) -> Result<()> {
        self.reshape(s)?;
        if let Some(w) = few_rounds(s, self.rounds.is_some()) {
            eprintln!("psbench: warning: {w}");
        }
        check_client_limits(s)
    }

    /// The study as its file defines it, without any override: what a measured time is for
    /// (`--plan`). Warns of nothing: the study as run is warned of.
    pub fn as_defined(s: &mut Study) -> Result<()> {
        Overrides::default().reshape(s)
    }

    fn reshape(&self, s: &mut Study) -> Result<()> {
        // Before variants are left out: `--basedir VARIANT=PATH` names any of the study's.
        super::basedirs::apply(&self.basedirs, s)?;
        if self.full {
            // Every scenario in both modes, at full size.
            s.throughput_variants = None;
            s.cost_workloads = None;
            s.throughput_workloads = None;
            s.rounds = s.rounds.max(5);
            s.duration = s.duration.max(10.0);
            s.warmup = s.warmup.max(2.0);
            if let Some(f) = s.full.clone() {
                full_size(s, &f);
            }
        } else {
            without_full_only(s, self.variants.as_deref().unwrap_or_default());
        }
        if self.cost_only {
            s.mode = Mode::Cost;
        }
        if self.profile {
            s.profile.enabled = true;
            if s.schedule == Schedule::Alternate {
                // A profile samples whole cells, so a profiled run takes turns.
                s.schedule = Schedule::Turns;
                s.slice = None;
                eprintln!(
                    "note: --profile samples whole cells, so this run of {} takes turns instead of alternating its servers",
                    s.name
                );
            }
        }
        if let Some(t) = self.time {
            if !(t.is_finite() && t > 0.0) {
                return Err(usage(format!(
                    "--time must be more than 0 seconds (got {t})"
                )));
            }
            s.duration = t;
        }
        if let Some(w) = self.warmup {
            if !(w.is_finite() && w >= 0.0) {
                return Err(usage(format!(
                    "--warmup must be 0 or more seconds (got {w})"
                )));
            }
            s.warmup = w;
        }
        if let Some(r) = self.rounds {
            if r == 0 {
                return Err(usage("--rounds must be at least 1"));
            }
            s.rounds = r;
        }
        if let Some(t) = &self.threads {
            if t.is_empty() || t.contains(&0) {
                return Err(usage(format!(
                    "--threads must list counts of at least 1 (got {t:?})"
                )));
            }
            s.threads = t.clone();
            for w in &mut s.workloads {
                w.threads = None;
            }
        }
        if let Some(m) = self.max_threads {
            if m == 0 {
                return Err(usage("--max-threads must be at least 1"));
            }
            s.threads.retain(|t| *t <= m);
            for w in &mut s.workloads {
                if let Some(t) = &mut w.threads {
                    t.retain(|t| *t <= m);
                }
            }
            if s.threads.is_empty() {
                s.threads = vec![1];
            }
        }
        if let Some(names) = &self.variants {
            for n in names {
                if !s.variants.iter().any(|v| &v.name == n) {
                    let names = s.variants.iter().map(|v| v.name.as_str());
                    return Err(usage(format!(
                        "--variants: no variant '{n}' in study {}{} (it has: {})",
                        s.name,
                        crate::error::suggestion(n, names),
                        s.variants
                            .iter()
                            .map(|v| v.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
            s.variants.retain(|v| names.contains(&v.name));
            if let [only] = &s.variants[..] {
                let base = s.base.clone().unwrap_or_else(|| only.name.clone());
                return Err(usage(format!(
                    "--variants {}: nothing to compare: one variant is its own base (give it with another, e.g. --variants {base},{})",
                    names.join(","),
                    if base == only.name { "OTHER" } else { &only.name },
                )));
            }
            if let Some(b) = &s.base {
                if !names.contains(b) {
                    s.base = None;
                }
            }
            if let Some(tv) = &mut s.throughput_variants {
                tv.retain(|v| names.contains(v));
                if tv.is_empty() {
                    s.throughput_variants = None;
                }
            }
        }
        if let Some(names) = &self.workloads {
            for n in names {
                if !s
                    .workloads
                    .iter()
                    .any(|w| &w.label() == n || &w.workload == n)
                {
                    let labels: Vec<String> = s.workloads.iter().map(|w| w.label()).collect();
                    return Err(usage(format!(
                        "--workloads: no workload step '{n}' in study {}{} (it has: {})",
                        s.name,
                        crate::error::suggestion(n, labels.iter().map(String::as_str)),
                        s.workloads
                            .iter()
                            .map(|w| w.label())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
            s.workloads
                .retain(|w| names.contains(&w.label()) || names.contains(&w.workload));
            // What cost mode may still name: the entries left, and their Insert Benchmark steps.
            let mut labels: Vec<String> = s.workloads.iter().map(|w| w.label()).collect();
            labels.extend(s.cells().into_iter().map(|(l, _)| l));
            if let Some(cw) = &mut s.cost_workloads {
                cw.retain(|n| labels.contains(n));
                if cw.is_empty() {
                    s.cost_workloads = None;
                }
            }
            if let Some(tw) = &mut s.throughput_workloads {
                tw.retain(|n| labels.contains(n));
                if tw.is_empty() {
                    s.throughput_workloads = None;
                }
            }
        }
        Ok(())
    }
}

/// The warning for a study measuring throughput in fewer rounds than a verdict needs (cost
/// mode counts instructions, the same in every round): `from_option` when `--rounds` set them.
pub fn few_rounds(s: &Study, from_option: bool) -> Option<String> {
    let min = crate::stats::MIN_ROUNDS;
    if s.mode == Mode::Cost || s.rounds as usize >= min {
        return None;
    }
    let from = match from_option {
        true => format!("--rounds {}", s.rounds),
        false => format!("study {} has rounds = {}", s.name, s.rounds),
    };
    Some(format!(
        "{from}: fewer than {min} rounds can resolve no throughput difference (an interval \
         needs 2 rounds, a verdict {min}): every throughput comparison will say not resolved"
    ))
}

/// Without `--full`, the variants marked `full_only` are left out, and with them the pairs
/// and throughput selections that name them; those `--variants` names are kept, at the
/// study's own size.
fn without_full_only(s: &mut Study, named: &[String]) {
    let waiting: Vec<String> = s
        .variants
        .iter()
        .filter(|v| v.full_only && !named.contains(&v.name))
        .map(|v| v.name.clone())
        .collect();
    if waiting.is_empty() {
        return;
    }
    s.variants.retain(|v| !waiting.contains(&v.name));
    s.pairs
        .retain(|[new, base]| !waiting.contains(new) && !waiting.contains(base));
    if let Some(tv) = &mut s.throughput_variants {
        tv.retain(|n| !waiting.contains(n));
    }
}

/// A study's own seed-sized settings, for `--full` on a bigger machine.
fn full_size(s: &mut Study, f: &crate::results::study::FullSize) {
    if let Some(r) = f.rounds {
        s.rounds = r;
    }
    if let Some(d) = f.duration {
        s.duration = d;
    }
    if let Some(w) = f.warmup {
        s.warmup = w;
    }
    if let Some(t) = &f.threads {
        s.threads = t.clone();
        for w in &mut s.workloads {
            w.threads = None;
        }
    }
    if f.tables.is_some() {
        s.dataset.tables = f.tables;
    }
    if f.table_size.is_some() {
        s.dataset.table_size = f.table_size;
    }
    if let Some(pool) = &f.buffer_pool {
        for v in &mut s.variants {
            for o in &mut v.options {
                let pool_option = crate::server::ServerOption::parse(o)
                    .is_ok_and(|p| p.base_key() == "innodb_buffer_pool_size");
                if pool_option {
                    *o = format!("innodb_buffer_pool_size={pool}");
                }
            }
        }
    }
}

/// Before any server starts: the study's largest thread count must be one this client can
/// run here (open files, threads, memory), or the study is refused naming the limit.
pub fn check_client_limits(study: &Study) -> Result<()> {
    let most = study.cells().iter().map(|(_, t)| *t).max().unwrap_or(1);
    crate::driver::limits::check(most as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewer_than_3_rounds_of_throughput_are_warned_about() {
        let mut s = crate::study::builtin::builtin("pfs-overhead").unwrap();
        assert_eq!(few_rounds(&s, false), None);
        s.rounds = 2;
        assert_eq!(
            few_rounds(&s, true).unwrap(),
            "--rounds 2: fewer than 3 rounds can resolve no throughput difference (an interval \
             needs 2 rounds, a verdict 3): every throughput comparison will say not resolved"
        );
        assert!(few_rounds(&s, false)
            .unwrap()
            .starts_with("study pfs-overhead has rounds = 2: "));
        s.mode = Mode::Cost;
        assert_eq!(few_rounds(&s, true), None);
    }

    #[test]
    fn full_applies_a_study_s_seed_sized_settings() {
        let mut s = crate::study::builtin::builtin("io-heavy").unwrap();
        Overrides {
            full: true,
            ..Overrides::default()
        }
        .apply(&mut s)
        .unwrap();
        assert_eq!((s.rounds, s.duration, s.warmup), (3, 1800.0, 60.0));
        assert_eq!(s.threads, [128]);
        assert_eq!(s.dataset_size(), (8, 50_000_000));
        for v in &s.variants {
            assert!(v
                .options
                .contains(&"innodb_buffer_pool_size=12G".to_string()));
        }
        // Without a [full] table, --full is only rounds, duration and both modes.
        let mut p = crate::study::builtin::builtin("pfs-overhead").unwrap();
        let pools = p.variants.clone();
        Overrides {
            full: true,
            ..Overrides::default()
        }
        .apply(&mut p)
        .unwrap();
        assert_eq!((p.rounds, p.duration), (5, 10.0));
        assert_eq!(p.variants, pools);
    }

    #[test]
    fn overrides_apply_and_check() {
        let mut s = crate::study::builtin::builtin("pfs-overhead").unwrap();
        let o = Overrides {
            time: Some(2.0),
            rounds: Some(2),
            threads: Some(vec![1]),
            variants: Some(vec!["ps_off".into(), "default".into()]),
            workloads: Some(vec!["point_select".into()]),
            ..Overrides::default()
        };
        o.apply(&mut s).unwrap();
        assert_eq!((s.duration, s.rounds, s.threads.clone()), (2.0, 2, vec![1]));
        assert_eq!(s.variants.len(), 2);
        assert_eq!(s.workloads.len(), 1);
        assert_eq!(
            s.throughput_variants.as_deref(),
            Some(&["ps_off".to_string(), "default".into()][..])
        );
        let bad = Overrides {
            variants: Some(vec!["nope".into()]),
            ..Overrides::default()
        };
        assert!(crate::error::is_usage(&bad.apply(&mut s).unwrap_err()));
        let zero = Overrides {
            threads: Some(vec![0]),
            ..Overrides::default()
        };
        assert!(zero.apply(&mut s).is_err());
    }

    #[test]
    fn a_profiled_or_short_run_of_an_alternating_study_still_runs() {
        let mut p = crate::study::builtin::builtin("pfs-overhead").unwrap();
        assert_eq!(p.schedule, Schedule::Alternate);
        let short = Overrides {
            time: Some(0.6),
            ..Overrides::default()
        };
        short.apply(&mut p).unwrap();
        assert_eq!(p.slice_s(), 0.6);
        Overrides {
            profile: true,
            ..Overrides::default()
        }
        .apply(&mut p)
        .unwrap();
        assert_eq!(p.schedule, Schedule::Turns);
    }

    #[test]
    fn full_only_variants_wait_for_full_with_the_pairs_that_name_them() {
        let names = |s: &Study| {
            s.variants
                .iter()
                .map(|v| v.name.clone())
                .collect::<Vec<_>>()
        };
        let mut quick = crate::study::builtin::builtin("pfs-builds").unwrap();
        Overrides::default().apply(&mut quick).unwrap();
        assert_eq!(
            names(&quick),
            ["no_pfs", "rel_ps_off", "rel_ps_on", "deb_ps_off"]
        );
        assert!(quick.throughput_workloads.is_some());
        let mut full = crate::study::builtin::builtin("pfs-builds").unwrap();
        full.pairs
            .push(["native_ps_off".into(), "v3_ps_off".into()]);
        let mut quick2 = full.clone();
        Overrides {
            full: true,
            ..Overrides::default()
        }
        .apply(&mut full)
        .unwrap();
        assert!(names(&full).contains(&"native_ps_off".to_string()));
        assert!(full.throughput_workloads.is_none() && full.cost_workloads.is_none());
        assert_eq!(full.pairs.len(), 3);
        let mut named = quick2.clone();
        Overrides::default().apply(&mut quick2).unwrap();
        assert_eq!(quick2.pairs.len(), 2);
        // Named by --variants, a full_only variant runs at the study's own size.
        Overrides {
            variants: Some(vec!["rel_ps_off".into(), "native_ps_off".into()]),
            ..Overrides::default()
        }
        .apply(&mut named)
        .unwrap();
        assert_eq!(names(&named), ["rel_ps_off", "native_ps_off"]);
        assert_eq!(named.rounds, quick.rounds);
    }
}
