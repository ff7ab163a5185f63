//! The study file (TOML): which servers, dataset, variants, workload steps, thread counts,
//! durations and rounds to run, and what counts as a change. Mistakes are reported with the
//! file, line and key.

use crate::error::usage;
pub use crate::results::study::{
    CostSettings, Dataset, Limits, Mode, Schedule, Study, Variant, WorkloadStep, INSERT_BENCHMARK,
};
use crate::workloads::ibench::{parse_steps, IbenchOptions, Step};
use crate::workloads::pgbench::{is_pgbench, PGBENCH_WORKLOADS};
use crate::workloads::sysbench::{OltpOptions, SYSBENCH_WORKLOADS};
use anyhow::Result;

/// A study file's text → a checked study. `origin` names the file in messages.
pub fn parse(text: &str, origin: &str) -> Result<Study> {
    let mut study: Study = toml::from_str(text).map_err(|e| {
        let place = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(", line {line}")
            })
            .unwrap_or_default();
        usage(format!(
            "{origin}{place}: {}",
            e.message().trim().replace('\n', " ")
        ))
    })?;
    super::sweep::expand(&mut study, origin, &crate::engines::catalogue::releases)?;
    study.check(origin)?;
    Ok(study)
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
        if let Some(w) = self.workloads.iter().find(|w| w.is_insert_benchmark()) {
            return Err(format!(
                "workload '{}': the Insert Benchmark changes its data step by step, so it runs with schedule = \"turns\"",
                w.label()
            ));
        }
        if self.profile.enabled {
            return Err("profile samples whole cells, so it runs with schedule = \"turns\"".into());
        }
        Ok(())
    }

    fn check(&self, origin: &str) -> Result<()> {
        let bad = |what: String| Err(usage(format!("{origin}: {what}")));
        if self.variants.is_empty() {
            return bad("no [[variant]]: a study compares at least one variant".into());
        }
        if self.workloads.is_empty() {
            return bad("no [[workload]]: name at least one workload step".into());
        }
        let mut seen = std::collections::HashSet::new();
        for v in &self.variants {
            if v.name.is_empty() || !seen.insert(v.name.as_str()) {
                return bad(format!("variant name '{}' is empty or repeated", v.name));
            }
            for o in &v.options {
                crate::server::ServerOption::parse(o)
                    .map_err(|e| usage(format!("{origin}: variant '{}': {e}", v.name)))?;
            }
            if let Some(p) = &v.settings {
                crate::engines::variant::check_preset(v, p)
                    .map_err(|e| usage(format!("{origin}: variant '{}': {e}", v.name)))?;
            }
            let named = [v.basedir.is_some(), v.version.is_some(), v.build.is_some()];
            if named.iter().filter(|n| **n).count() > 1 {
                return bad(format!(
                    "variant '{}': give one of basedir, version and build, not more",
                    v.name
                ));
            }
            if let Some(b) = &v.build {
                crate::engines::from_source::check(b)
                    .map_err(|e| usage(format!("{origin}: variant '{}': {e}", v.name)))?;
            }
            if let Some(ver) = &v.version {
                crate::engines::releases::Release::parse(ver)
                    .map_err(|e| usage(format!("{origin}: variant '{}': {e}", v.name)))?;
            }
        }
        crate::engines::study_checks::check(self).map_err(|e| usage(format!("{origin}: {e}")))?;
        for [new, base] in &self.pairs {
            for v in [new, base] {
                if !self.variants.iter().any(|x| &x.name == v) {
                    return bad(format!("pairs names '{v}', which is no variant"));
                }
            }
            if new == base {
                return bad(format!("pairs compares '{new}' with itself"));
            }
        }
        if let Some(b) = &self.base {
            if !self.variants.iter().any(|v| &v.name == b) {
                return bad(format!("base = '{b}' names no variant"));
            }
        }
        if let Some(tv) = &self.throughput_variants {
            for n in tv {
                if !self.variants.iter().any(|v| &v.name == n) {
                    return bad(format!(
                        "throughput_variants names '{n}', which is no variant"
                    ));
                }
            }
        }
        if self.locate {
            check_locate(self).map_err(|e| usage(format!("{origin}: locate: {e}")))?;
        }
        self.check_selections()
            .map_err(|e| usage(format!("{origin}: {e}")))?;
        self.check_schedule()
            .map_err(|e| usage(format!("{origin}: {e}")))?;
        if self.rounds == 0 {
            return bad("rounds must be at least 1".into());
        }
        if !(self.duration.is_finite() && self.duration > 0.0) {
            return bad(format!(
                "duration must be more than 0 seconds (got {})",
                self.duration
            ));
        }
        if !(self.warmup.is_finite() && self.warmup >= 0.0) {
            return bad(format!(
                "warmup must be 0 or more seconds (got {})",
                self.warmup
            ));
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0 && self.threshold < 1.0) {
            return bad(format!(
                "threshold must be in [0, 1) (got {})",
                self.threshold
            ));
        }
        for w in &self.workloads {
            if w.is_insert_benchmark() {
                self.ibench_steps(w)
                    .map_err(|e| usage(format!("{origin}: workload '{}': {e}", w.label())))?;
                continue;
            }
            if w.steps.is_some() {
                return bad(format!(
                    "workload '{}': steps are for {INSERT_BENCHMARK} only",
                    w.label()
                ));
            }
            if !SYSBENCH_WORKLOADS.contains(&w.workload.as_str()) && !is_pgbench(&w.workload) {
                return bad(format!(
                    "unknown workload '{}'; known: {}, {INSERT_BENCHMARK}, and on PostgreSQL {}",
                    w.workload,
                    SYSBENCH_WORKLOADS.join(", "),
                    PGBENCH_WORKLOADS.join(", ")
                ));
            }
            let threads = w.threads.as_ref().unwrap_or(&self.threads);
            if threads.is_empty() || threads.contains(&0) {
                return bad(format!(
                    "workload '{}': thread counts must be at least 1 (got {threads:?})",
                    w.label()
                ));
            }
            self.workload_options(w)
                .map_err(|e| usage(format!("{origin}: workload '{}': {e}", w.label())))?;
            self.pgbench_options(w)
                .map_err(|e| usage(format!("{origin}: workload '{}': {e}", w.label())))?;
            if let Some(events) = &w.cost_events {
                crate::cost::Plan::check(events)
                    .map_err(|e| usage(format!("{origin}: workload '{}': {e}", w.label())))?;
            }
        }
        super::regime::check(self).map_err(|e| usage(format!("{origin}: {e}")))?;
        let cells = self.cells();
        // After the entries' own checks: an Insert Benchmark step's label needs its steps.
        if let Some(cw) = &self.cost_workloads {
            for n in cw {
                let entry = self.workloads.iter().any(|w| &w.label() == n);
                if !entry && !cells.iter().any(|(l, _)| l == n) {
                    return bad(format!(
                        "cost_workloads names '{n}', which is no workload step"
                    ));
                }
            }
        }
        let steps: Vec<String> = cells.iter().map(|(l, _)| l.clone()).collect();
        let threads: Vec<u32> = cells.iter().map(|(_, t)| *t).collect();
        self.profile
            .check(&steps, &threads, self.rounds)
            .map_err(|e| usage(format!("{origin}: {e}")))?;
        crate::cost::Plan::check(&self.cost.events)
            .map_err(|e| usage(format!("{origin}: cost.events: {e}")))?;
        Ok(())
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

    /// The workload's options: sysbench's defaults, the dataset, then the step's overrides.
    /// An unknown key is an error.
    pub fn workload_options(&self, w: &WorkloadStep) -> Result<OltpOptions> {
        let (tables, rows) = self.dataset_size();
        let mut base = OltpOptions {
            tables,
            table_size: rows,
            ..OltpOptions::default()
        };
        // pgbench's steps take pgbench's options (Study::pgbench_options).
        if w.options.is_empty() || is_pgbench(&w.workload) {
            return Ok(base);
        }
        let mut table = toml::Table::try_from(&base)?;
        for (k, v) in &w.options {
            let key = k.replace('-', "_");
            if !table.contains_key(&key) {
                return Err(usage(format!("unknown workload option '{k}'")));
            }
            table.insert(key, v.clone());
        }
        base = table
            .try_into()
            .map_err(|e: toml::de::Error| usage(format!("workload options: {}", e.message())))?;
        base.validate()?;
        Ok(base)
    }

    /// An Insert Benchmark entry's options: its defaults, then the entry's `options`.
    pub fn ibench_options(&self, w: &WorkloadStep) -> Result<IbenchOptions> {
        let mut table = toml::Table::new();
        for (k, v) in &w.options {
            table.insert(k.replace('-', "_"), v.clone());
        }
        let o: IbenchOptions = table
            .try_into()
            .map_err(|e: toml::de::Error| usage(format!("workload options: {}", e.message())))?;
        o.validate()?;
        Ok(o)
    }

    /// An Insert Benchmark entry's steps, in order.
    pub fn ibench_steps(&self, w: &WorkloadStep) -> Result<Vec<Step>> {
        let o = self.ibench_options(w)?;
        let list = w
            .steps
            .as_ref()
            .map(|s| s.join(","))
            .unwrap_or_else(|| "all".into());
        parse_steps(&list, &o)
    }

    /// The cells of one workload entry: (step label, threads). An Insert Benchmark entry has
    /// one per step, at its client count.
    pub fn cells_of(&self, w: &WorkloadStep) -> Vec<(String, u32)> {
        if w.is_insert_benchmark() {
            let clients = self.ibench_options(w).map_or(1, |o| o.clients);
            let steps = self.ibench_steps(w).unwrap_or_default();
            return steps
                .iter()
                .map(|s| (w.ibench_label(&s.name), clients))
                .collect();
        }
        self.threads_for(w)
            .into_iter()
            .map(|t| (w.label(), t))
            .collect()
    }

    /// Every measured cell's (step label, threads), in the study's order.
    pub fn cells(&self) -> Vec<(String, u32)> {
        self.workloads
            .iter()
            .flat_map(|w| self.cells_of(w))
            .collect()
    }

    /// The sysbench workload entries (the Insert Benchmark's are run as a step sequence).
    pub fn sysbench_steps(&self) -> Vec<&WorkloadStep> {
        self.workloads
            .iter()
            .filter(|w| !w.is_insert_benchmark())
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
        self.cost_selects(&w.label())
            || (w.is_insert_benchmark()
                && self.cells_of(w).iter().any(|(l, _)| self.cost_selects(l)))
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
        let o = s.workload_options(&s.workloads[0]).unwrap();
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
        assert_eq!(s.ibench_options(w).unwrap().rows_i1, 10);
        assert_eq!(
            s.cells(),
            [
                ("point_select".to_string(), 1),
                ("point_select".to_string(), 2),
                ("l.i0".to_string(), 2),
                ("qr500".to_string(), 2)
            ]
        );
        // Cost mode measures both entries (the Insert Benchmark's by step: ibench_cost.rs).
        assert_eq!(s.cost_steps().len(), 2);
        let bad_step = text.replace("qr500", "qz500");
        assert!(err(&bad_step).contains("unknown Insert Benchmark step 'qz500'"));
        let bad_option = text.replace("rows-i1", "rowz");
        assert!(err(&bad_option).contains("rowz"), "{}", err(&bad_option));
        let steps_elsewhere = OK.replace("options = {", "steps = [\"l.i0\"]\noptions = {");
        assert!(err(&steps_elsewhere).contains("steps are for insert-benchmark only"));
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
