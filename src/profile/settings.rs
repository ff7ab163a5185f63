//! What a study profiles: `profile = true`, or a `[profile]` table that picks the cells and
//! the sampling frequency.

use crate::error::usage;
pub use crate::results::profile_settings::{ProfileSettings, DEFAULT_FREQUENCY};
use crate::results::CellKey;
use anyhow::Result;

impl ProfileSettings {
    /// Whether the cell `key` is sampled.
    pub fn selects(&self, key: &CellKey) -> bool {
        self.enabled
            && self.rounds.contains(&key.round)
            && self
                .threads
                .as_ref()
                .is_none_or(|t| t.contains(&key.threads))
            && self.steps.as_ref().is_none_or(|s| s.contains(&key.step))
    }

    /// Check the selection against the study's steps, thread counts and rounds.
    pub fn check(&self, steps: &[String], threads: &[u32], rounds: u32) -> Result<()> {
        if !self.enabled {
            return Ok(());
        }
        if !(1..=10_000).contains(&self.frequency) {
            return Err(usage(format!(
                "profile.frequency must be 1 to 10000 samples per second (got {})",
                self.frequency
            )));
        }
        if let Some(s) = self.steps.iter().flatten().find(|s| !steps.contains(s)) {
            return Err(usage(format!(
                "profile.steps names '{s}', which is no workload step (steps: {})",
                steps.join(", ")
            )));
        }
        if let Some(t) = self.threads.iter().flatten().find(|t| !threads.contains(t)) {
            return Err(usage(format!(
                "profile.threads has {t}, which no workload step runs (thread counts: {threads:?})"
            )));
        }
        if self.rounds.is_empty() {
            return Err(usage(
                "profile.rounds must name at least one round (0 is the first)",
            ));
        }
        if let Some(r) = self.rounds.iter().find(|r| **r >= rounds) {
            return Err(usage(format!(
                "profile.rounds has {r}, but the study runs rounds 0 to {}",
                rounds - 1
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    struct Doc {
        #[serde(default)]
        profile: ProfileSettings,
    }

    fn parse(text: &str) -> Result<ProfileSettings, toml::de::Error> {
        toml::from_str::<Doc>(text).map(|d| d.profile)
    }

    fn key(round: u32, step: &str, threads: u32) -> CellKey {
        CellKey {
            round,
            variant: "v".into(),
            step: step.into(),
            threads,
        }
    }

    #[test]
    fn flag_or_table() {
        assert!(!parse("").unwrap().enabled);
        let on = parse("profile = true").unwrap();
        assert_eq!(
            (on.enabled, on.frequency, on.rounds.clone()),
            (true, 499, vec![0])
        );
        assert!(on.selects(&key(0, "point_select", 4)));
        assert!(!on.selects(&key(1, "point_select", 4)));
        let t = parse("[profile]\nthreads = [1]\nsteps = [\"a\"]\nrounds = [0, 2]\nfrequency = 99")
            .unwrap();
        assert!(t.enabled && t.frequency == 99);
        assert!(t.selects(&key(2, "a", 1)));
        assert!(!t.selects(&key(2, "a", 2)) && !t.selects(&key(0, "b", 1)));
        assert!(!parse("[profile]\nenabled = false")
            .unwrap()
            .selects(&key(0, "a", 1)));
        let e = parse("[profile]\nthread = [1]").unwrap_err().to_string();
        assert!(e.contains("thread"), "{e}");
        assert!(parse("profile = 3").is_err());
    }

    #[test]
    fn selection_must_name_what_the_study_runs() {
        let steps = ["a".to_string()];
        let s = ProfileSettings {
            enabled: true,
            steps: Some(vec!["b".into()]),
            ..ProfileSettings::default()
        };
        assert!(s
            .check(&steps, &[1], 3)
            .unwrap_err()
            .to_string()
            .contains("'b'"));
        let s = ProfileSettings {
            enabled: true,
            rounds: vec![3],
            ..ProfileSettings::default()
        };
        assert!(s.check(&steps, &[1], 3).is_err());
        let s = ProfileSettings {
            enabled: true,
            frequency: 0,
            ..ProfileSettings::default()
        };
        assert!(s.check(&steps, &[1], 3).is_err());
        let ok = ProfileSettings {
            enabled: true,
            threads: Some(vec![1]),
            ..ProfileSettings::default()
        };
        ok.check(&steps, &[1, 2], 3).unwrap();
    }
}
