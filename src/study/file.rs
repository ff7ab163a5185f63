//! The study file (TOML): which servers, dataset, variants, workload steps, thread counts,
//! durations and rounds to run, and what counts as a change. Mistakes are reported with the
//! file, line and key.

pub use super::file_keys::Place;
use crate::results::study::{Schedule, Study, WorkloadStep};
use anyhow::Result;

/// A study file's text → a checked study. `origin` names the file in messages. Every mistake
/// found is reported at once, a line each, with its line in the file where it has one.
pub fn parse(text: &str, origin: &str) -> Result<Study> {
    let (study, found) = super::file_keys::read(text);
    let mut lines: Vec<(Option<usize>, String)> = found;
    if let Some(mut study) = study {
        for (place, what) in super::inputs::resolve(&mut study, origin) {
            lines.push((super::file_keys::place_of(text, &place), what));
        }
        match super::sweep::expand(&mut study, origin, &crate::engines::catalogue::releases) {
            Err(e) => return Err(e),
            Ok(()) => {
                for (variant, what) in crate::engines::from_source::fill_named(&mut study.variants)
                {
                    let place = Place::VariantKey(variant, "build");
                    lines.push((super::file_keys::place_of(text, &place), what));
                }
                for (place, what) in study.problems() {
                    lines.push((super::file_keys::place_of(text, &place), what));
                }
            }
        }
        if lines.is_empty() {
            return Ok(study);
        }
    }
    lines.sort_by_key(|(at, _)| at.unwrap_or(usize::MAX));
    let lines = lines
        .into_iter()
        .map(|(at, what)| match at {
            Some(at) => format!(
                "{origin}, line {}: {what}",
                super::file_keys::line_of(text, at)
            ),
            None => format!("{origin}: {what}"),
        })
        .collect();
    Err(crate::error::mistakes(lines).expect("a study that did not parse has a mistake"))
}

impl Study {
    /// What an alternating schedule needs: a slice no longer than the measured time, steps
    /// that leave the data as they found it, and no profiling (its samples are per cell).
    fn check_schedule(&self) -> Result<(), String> {
        if self.schedule != Schedule::Alternate {
            return match self.slice {
                Some(_) => Err("slice applies to schedule = \"alternate\" only".into()),
                None => Ok(()),
            };
        }
        let slice = self.slice_s();
        if !(slice.is_finite() && slice >= 0.5 && slice <= self.duration) {
            return Err(format!(
                "slice must be at least 0.5 seconds and at most duration ({}), got {slice}",
                self.duration
            ));
        }
        if let Some(why) = self.workloads.iter().find_map(|w| self.in_order(w)) {
            return Err(format!("{why}, so it runs with schedule = \"turns\""));
        }
        if self.profile.enabled {
            return Err("profile samples whole cells, so it runs with schedule = \"turns\"".into());
        }
        Ok(())
    }

    /// Every mistake of a parsed study, with where it is.
    pub fn problems(&self) -> Vec<(Place, String)> {
        let mut p: Vec<(Place, String)> = Vec::new();
        let text = |e: anyhow::Error| crate::error::one_line(&e);
        if self.variants.is_empty() {
            let what = "no [[variant]]: a study compares at least one variant";
            p.push((Place::Study, what.into()));
        }
        if self.workloads.is_empty() {
            let what = "no [[workload]]: name at least one workload step";
            p.push((Place::Study, what.into()));
        }
        let mut seen = std::collections::HashSet::new();
        for v in &self.variants {
            let mut bad = |key: &'static str, what: String| {
                p.push((Place::VariantKey(v.name.clone(), key), what))
            };
            if v.name.is_empty() || !seen.insert(v.name.as_str()) {
                bad(
                    "name",
                    format!("variant name '{}' is empty or repeated", v.name),
                );
            }
            let named = format!("variant '{}'", v.name);
            for o in &v.options {
                if let Err(e) = crate::server::ServerOption::parse(o) {
                    bad("options", format!("{named}: {}", text(e)));
                }
            }
            if let Some(e) = v
                .settings
                .as_ref()
                .and_then(|s| crate::engines::variant::check_preset(v, s).err())
            {
                bad("settings", format!("{named}: {}", text(e)));
            }
            let given = [v.basedir.is_some(), v.version.is_some(), v.build.is_some()];
            if given.iter().filter(|n| **n).count() > 1 {
                bad(
                    "name",
                    format!("{named}: give one of basedir, version and build, not more"),
                );
            }
            if let Some(Err(e)) = v.build.as_ref().map(crate::engines::from_source::check) {
                bad("build", format!("{named}: {}", text(e)));
            }
            if let Some(Err(e)) = v
                .version
                .as_ref()
                .map(|r| crate::engines::releases::Release::parse(r))
            {
                bad("version", format!("{named}: {}", text(e)));
            }
        }
        if !self.variants.is_empty() {
            if let Err(e) = crate::engines::study_checks::check(self) {
                let e = text(e);
                let at = self
                    .variants
                    .iter()
                    .find(|v| e.starts_with(&format!("variant '{}'", v.name)))
                    .map_or(Place::Study, |v| {
                        // The key the message is about, where it names one.
                        let key = [
                            "scenario",
                            "settings",
                            "engine",
                            "build",
                            "version",
                            "defaults_file",
                            "config_file",
                        ]
                        .into_iter()
                        .find(|k| e[v.name.len() + 10..].contains(k))
                        .unwrap_or("name");
                        Place::VariantKey(v.name.clone(), key)
                    });
                p.push((at, e));
            }
        }
        let names = || self.variants.iter().map(|v| v.name.as_str());
        let no_variant = |key: &str, n: &str| {
            format!(
                "{key} names '{n}', which is no variant{}",
                crate::error::suggestion(n, names())
            )
        };
        for [new, base] in &self.pairs {
            for v in [new, base] {
                if !names().any(|x| x == v) {
                    p.push((Place::Key("pairs"), no_variant("pairs", v)));
                }
            }
            if new == base {
                p.push((
                    Place::Key("pairs"),
                    format!("pairs compares '{new}' with itself"),
                ));
            }
        }
        if let Some(b) = self.base.as_ref().filter(|b| !names().any(|x| x == *b)) {
            let what = format!(
                "base = '{b}' names no variant{}",
                crate::error::suggestion(b, names())
            );
            p.push((Place::Key("base"), what));
        }
        for n in self.throughput_variants.iter().flatten() {
            if !names().any(|x| x == n) {
                p.push((
                    Place::Key("throughput_variants"),
                    no_variant("throughput_variants", n),
                ));
            }
        }
        if self.locate {
            if let Err(e) = check_locate(self) {
                p.push((Place::Key("locate"), format!("locate: {e}")));
            }
        }
        if let Err(e) = self.check_selections() {
            p.push((Place::Study, e));
        }
        for e in self.published_mistakes() {
            p.push((Place::Key("published"), e));
        }
        if let Err(e) = self.check_schedule() {
            p.push((Place::Key("schedule"), e));
        }
        if self.rounds == 0 {
            p.push((Place::Key("rounds"), "rounds must be at least 1".into()));
        }
        if self.threads.is_empty() || self.threads.contains(&0) {
            let what = format!("thread counts must be at least 1 (got {:?})", self.threads);
            p.push((Place::Key("threads"), what));
        }
        if !(self.duration.is_finite() && self.duration > 0.0) {
            let what = format!(
                "duration must be more than 0 seconds (got {})",
                self.duration
            );
            p.push((Place::Key("duration"), what));
        }
        if !(self.warmup.is_finite() && self.warmup >= 0.0) {
            let what = format!("warmup must be 0 or more seconds (got {})", self.warmup);
            p.push((Place::Key("warmup"), what));
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0 && self.threshold < 1.0) {
            let what = format!("threshold must be in [0, 1) (got {})", self.threshold);
            p.push((Place::Key("threshold"), what));
        }
        let ctx = self.kind_context();
        for (i, w) in self.workloads.iter().enumerate() {
            let named = format!("workload '{}'", w.label());
            let mut bad = |what: String| p.push((Place::Workload(i), what));
            for what in self.kind(w).mistakes(w, &ctx) {
                // An unknown workload names itself.
                match what.starts_with("unknown workload '") {
                    true => bad(what),
                    false => bad(format!("{named}: {what}")),
                }
            }
            if let Some(Err(e)) = w
                .cost_events
                .as_ref()
                .map(|ev| crate::cost::Plan::check(ev))
            {
                bad(format!("{named}: {e}"));
            }
        }
        if !self.variants.is_empty() {
            if let Err(e) = super::regime::check(self) {
                p.push((Place::Study, text(e)));
            }
        }
        let cells = self.cells();
        // After the entries' own checks: an Insert Benchmark step's label needs its steps.
        for n in self.cost_workloads.iter().flatten() {
            let entry = self.workloads.iter().any(|w| &w.label() == n);
            if !entry && !cells.iter().any(|(l, _)| l == n) {
                let labels: Vec<String> = cells.iter().map(|(l, _)| l.clone()).collect();
                let what = format!(
                    "cost_workloads names '{n}', which is no workload step{}",
                    crate::error::suggestion(n, labels.iter().map(String::as_str))
                );
                p.push((Place::Key("cost_workloads"), what));
            }
        }
        let steps: Vec<String> = cells.iter().map(|(l, _)| l.clone()).collect();
        let threads: Vec<u32> = cells.iter().map(|(_, t)| *t).collect();
        if let Err(e) = self.profile.check(&steps, &threads, self.rounds) {
            p.push((Place::Key("profile"), text(e)));
        }
        if let Err(e) = crate::cost::Plan::check(&self.cost.events) {
            p.push((Place::Key("cost.events"), format!("cost.events: {e}")));
        }
        p
    }

    /// (tables, rows per table) of the dataset: sized from the variants' buffer pools when
    /// any variant has a regime (study/regime.rs), else sysbench's small default.
    pub fn dataset_size(&self) -> (u32, u32) {
        let sized = super::regime::data_bytes(self);
        let tables = self
            .dataset
            .tables
            .unwrap_or(if sized.is_some() { 8 } else { 1 });
        let rows = match (self.dataset.table_size, sized) {
            (Some(n), _) => n,
            (None, Some(bytes)) => super::regime::rows_for(bytes, tables),
            (None, None) => 10_000,
        };
        (tables, rows)
    }

    /// Every measured cell's (step label, threads), in the study's order.
    pub fn cells(&self) -> Vec<(String, u32)> {
        self.workloads
            .iter()
            .flat_map(|w| self.cells_of(w))
            .collect()
    }

    /// Whether cost mode measures `label`: with no `cost_workloads`, everything; else what it
    /// names. An Insert Benchmark entry's label stands for all its steps, and each step may be
    /// named alone by its cell label ("l.i1", or "ib l.i1" in an entry named "ib").
    pub fn cost_selects(&self, label: &str) -> bool {
        selects(&self.cost_workloads, label)
    }

    /// Whether throughput rounds measure the workload entry labelled `label`: with no
    /// `throughput_workloads`, every entry.
    pub fn throughput_selects(&self, label: &str) -> bool {
        selects(&self.throughput_workloads, label)
    }

    /// The (step, threads) cells throughput rounds measure, in the study's order.
    pub fn throughput_cells(&self) -> Vec<(String, u32)> {
        self.workloads
            .iter()
            .filter(|w| self.throughput_selects(&w.label()))
            .flat_map(|w| self.cells_of(w))
            .collect()
    }

    /// Whether cost mode measures the workload entry `w`, at least in part.
    pub fn cost_measures(&self, w: &WorkloadStep) -> bool {
        !self.cost_labels(w).is_empty()
    }

    /// The workload entries measured in cost mode, at least in part.
    pub fn cost_steps(&self) -> Vec<&WorkloadStep> {
        self.workloads
            .iter()
            .filter(|w| self.cost_measures(w))
            .collect()
    }

    pub fn threads_for(&self, w: &WorkloadStep) -> Vec<u32> {
        w.threads.clone().unwrap_or_else(|| self.threads.clone())
    }
}

/// Whether an optional list of names selects `label`: no list selects everything.
/// Locating bisects a sweep's releases by their counts: it needs a sweep and cost mode.
pub fn check_locate(study: &Study) -> std::result::Result<(), String> {
    let sweep = study
        .variants
        .iter()
        .any(|v| v.versions.is_some() || v.sweep.is_some());
    if !sweep || study.mode == crate::results::study::Mode::Throughput {
        return Err(format!(
            "study {} has no sweep (a variant with versions) measured in cost mode to locate changes in",
            study.name
        ));
    }
    Ok(())
}

fn selects(names: &Option<Vec<String>>, label: &str) -> bool {
    names
        .as_ref()
        .is_none_or(|names| names.iter().any(|n| n == label))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"
name = "t"
threads = [1, 2]
[[variant]]
name = "off"
scenario = "ps_off"
[[variant]]
name = "on"
options = ["performance_schema=ON"]
[[workload]]
workload = "oltp_point_select"
options = { db_ps_mode = "disable", range-size = 50 }
"#;

    #[test]
    fn parses_a_study_with_defaults() {
        let s = parse(OK, "t.toml").unwrap();
        assert_eq!(s.base_variant(), "off");
        assert_eq!(s.rounds, 3);
        assert_eq!(s.threads, [1, 2]);
        let o =
            crate::workloads::kinds::sysbench::options(&s.workloads[0], &s.kind_context()).unwrap();
        assert_eq!(o.range_size, 50);
        assert_eq!(o.db_ps_mode, crate::workloads::sysbench::PsMode::Disable);
        assert_eq!(s.workloads[0].label(), "point_select");
    }

    #[test]
    fn an_insert_benchmark_entry_is_a_cell_per_step_at_its_client_count() {
        let text = format!(
            "{OK}[[workload]]\nworkload = \"insert-benchmark\"\nsteps = [\"l.i0\", \"qr500\"]\noptions = {{ clients = 2, rows-i1 = 10 }}\n"
        );
        let s = parse(&text, "t.toml").unwrap();
        let w = &s.workloads[1];
        assert_eq!(
            crate::workloads::kinds::insert_benchmark::options(w)
                .unwrap()
                .rows_i1,
            10
        );
        assert_eq!(
            s.cells(),
            [
                ("point_select".to_string(), 1),
                ("point_select".to_string(), 2),
                ("l.i0".to_string(), 2),
                ("qr500".to_string(), 2)
            ]
        );
        // Cost mode measures both entries (the Insert Benchmark's by step).
        assert_eq!(s.cost_steps().len(), 2);
        let bad_step = text.replace("qr500", "qz500");
        assert!(err(&bad_step).contains("unknown Insert Benchmark step 'qz500'"));
        let bad_option = text.replace("rows-i1", "rowz");
        assert!(err(&bad_option).contains("rowz"), "{}", err(&bad_option));
        let steps_elsewhere = OK.replace("options = {", "steps = [\"l.i0\"]\noptions = {");
        assert!(err(&steps_elsewhere).contains("steps is a key of insert-benchmark steps only"));
    }

    fn err(text: &str) -> String {
        let e = parse(text, "s.toml").unwrap_err();
        assert!(crate::error::is_usage(&e));
        e.to_string()
    }

    #[test]
    fn variant_options_may_be_a_table() {
        let text = OK.replace(
            r#"options = ["performance_schema=ON"]"#,
            r#"options = { performance_schema = "ON", max_connections = 200, innodb_adaptive_hash_index = false, performance_schema_instrument = ["%=OFF", "wait/%=ON"] }"#,
        );
        let s = parse(&text, "t.toml").unwrap();
        assert_eq!(
            s.variants[1].options,
            [
                "innodb_adaptive_hash_index=OFF",
                "max_connections=200",
                "performance_schema=ON",
                "performance_schema_instrument=%=OFF",
                "performance_schema_instrument=wait/%=ON"
            ]
        );
        let e = err(&OK.replace(
            r#"options = ["performance_schema=ON"]"#,
            r#"options = { x = { y = 1 } }"#,
        ));
        assert!(e.contains("option 'x'") && e.contains("s.toml"), "{e}");
        let e = err(&OK.replace(r#"options = ["performance_schema=ON"]"#, "options = 3"));
        assert!(e.contains("neither a list"), "{e}");
    }

    #[test]
    fn mistakes_name_file_line_and_key() {
        let e = err(&OK.replace("threads = [1, 2]", "threads = [1, 2]\nthread = 3"));
        assert!(e.contains("s.toml, line 4") && e.contains("thread"), "{e}");
        let e = err(&OK.replace("name = \"t\"", "name = \"t\"\nrounds = \"x\""));
        assert!(e.contains("line 3") && e.contains("invalid type"), "{e}");
        assert!(err("name = [").contains("s.toml, line 1"));
        assert!(err(&OK.replace("oltp_point_select", "oltp_nope"))
            .contains("unknown workload 'oltp_nope'"));
        assert!(err(&OK.replace("ps_off", "ps_of")).contains("unknown scenario 'ps_of'"));
        assert!(err(&OK.replace("range-size", "range-sise"))
            .contains("unknown workload option 'range-sise'"));
        assert!(err(&OK.replace("[1, 2]", "[0]")).contains("at least 1"));
        assert!(err(&format!("duration = -1\n{OK}")).contains("duration must be more than 0"));
        assert!(err(&format!("base = \"zz\"\n{OK}")).contains("base = 'zz'"));
    }

    #[test]
    fn cpus_take_taskset_lists() {
        let s = parse(&format!("cpus = {{ server = \"0-3,8\" }}\n{OK}"), "t.toml").unwrap();
        assert_eq!(s.cpus.server.unwrap().cpus(), [0, 1, 2, 3, 8]);
        assert!(s.cpus.client.is_none());
        assert!(parse(OK, "t.toml").unwrap().cpus.is_empty());
        let e = err(&format!("cpus = {{ client = \"1-x\" }}\n{OK}"));
        assert!(
            e.contains("s.toml, line 1") && e.contains("not a CPU list"),
            "{e}"
        );
        assert!(err(&format!("cpus = {{ clients = \"1\" }}\n{OK}")).contains("clients"));
    }
}
