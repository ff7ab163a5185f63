//! Profiling during a study: checks once that perf works, then samples the selected cells'
//! measured windows and stores each cell's folded stacks in the results directory.

use super::settings::ProfileSettings;
use super::{fold, perf, symbols};
use crate::results::document::CellProfile;
use crate::results::CellKey;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Folder of the results directory that holds profiles.
pub const DIR: &str = crate::results::document::PROFILES_DIR;

/// File-name-safe form of a cell's key: `<variant>-<step>-<threads>t-r<round>`.
pub fn cell_stem(key: &CellKey) -> String {
    let safe = |s: &str| {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect::<String>()
    };
    format!(
        "{}-{}-{}t-r{}",
        safe(&key.variant),
        safe(&key.step),
        key.threads,
        key.round
    )
}

enum State {
    Unchecked,
    Ready,
    Unavailable,
}

/// One study's profiling: settings, where files go, and whether perf works here.
pub struct Session {
    settings: ProfileSettings,
    results_dir: PathBuf,
    state: State,
}

impl Session {
    /// `None` when the study does not profile.
    pub fn new(settings: &ProfileSettings, results_dir: &Path) -> Option<Session> {
        settings.enabled.then(|| Session {
            settings: settings.clone(),
            results_dir: results_dir.to_path_buf(),
            state: State::Unchecked,
        })
    }

    /// The sampler for a cell, or `None` when the cell is not selected or perf cannot run.
    /// The first time perf is tried, what the reader must know goes into `notes` (and
    /// stderr), once.
    pub fn for_cell(
        &mut self,
        key: &CellKey,
        server_pid: i32,
        server_binary: &Path,
        notes: &mut Vec<String>,
    ) -> Option<CellSampler> {
        if !self.settings.selects(key) {
            return None;
        }
        if let State::Unchecked = self.state {
            let note = match perf::unavailable(server_pid) {
                Some(why) => {
                    self.state = State::Unavailable;
                    format!(
                        "profiles were asked for but not taken: {why}; the study ran without them"
                    )
                }
                None => {
                    self.state = State::Ready;
                    format!(
                        "profiled cells ran under perf sampling at {} Hz with call graphs, which costs the server \
                         some throughput; compare rounds that were not profiled for throughput",
                        self.settings.frequency
                    )
                }
            };
            if matches!(self.state, State::Unavailable) {
                eprintln!("psbench: {note}");
            }
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        match self.state {
            State::Ready => Some(CellSampler {
                stem: cell_stem(key),
                results_dir: self.results_dir.clone(),
                frequency: self.settings.frequency,
                server_binary: server_binary.to_path_buf(),
            }),
            _ => None,
        }
    }
}

/// Samples one cell's measured window.
pub struct CellSampler {
    stem: String,
    results_dir: PathBuf,
    frequency: u32,
    server_binary: PathBuf,
}

/// A cell's sampling in progress.
pub struct Sampling<'a> {
    sampler: &'a CellSampler,
    recording: perf::Recording,
}

/// A cell's samples, recorded and waiting to be folded.
pub struct Sampled<'a> {
    sampler: &'a CellSampler,
    stopped: perf::Stopped,
}

impl CellSampler {
    pub fn start(&self, server_pid: i32) -> Result<Sampling<'_>> {
        let dir = self.results_dir.join(DIR);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let data = dir.join(format!("{}.perf.data", self.stem));
        let recording = perf::start(server_pid, self.frequency, &data)
            .with_context(|| format!("profiling the server for {}", self.stem))?;
        Ok(Sampling {
            sampler: self,
            recording,
        })
    }
}

impl<'a> Sampling<'a> {
    /// Stop right when the measured window ends.
    pub fn stop(self) -> Result<Sampled<'a>> {
        Ok(Sampled {
            sampler: self.sampler,
            stopped: self.recording.stop()?,
        })
    }
}

impl Sampled<'_> {
    /// CPU seconds perf itself used, in microseconds: the cell's "other processes" CPU
    /// would otherwise count it.
    pub fn perf_cpu_us(&self) -> u64 {
        self.stopped.perf_cpu_us
    }

    /// Fold the samples into `profiles/<stem>.folded` (perf's data file is removed: the
    /// folded stacks are what is kept) and describe them for the cell's result.
    pub fn store(self, transactions: u64) -> Result<CellProfile> {
        let s = self.sampler;
        let script = perf::script(&self.stopped.data)?;
        let folded = fold::collapse(&script, s.frequency)?;
        let rel = format!("{DIR}/{}.folded", s.stem);
        let path = s.results_dir.join(&rel);
        std::fs::write(&path, fold::render(&folded))
            .with_context(|| format!("writing {}", path.display()))?;
        let _ = std::fs::remove_file(&self.stopped.data);
        let resolution = symbols::resolution(&script, &s.server_binary);
        Ok(CellProfile {
            folded: rel,
            transactions,
            samples: fold::samples(&script),
            seconds: self.stopped.seconds,
            frequency: s.frequency,
            unresolved_share: resolution.unresolved_share(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_are_file_names() {
        let k = CellKey {
            round: 0,
            variant: "a b/c".into(),
            step: "point_select".into(),
            threads: 4,
        };
        assert_eq!(cell_stem(&k), "a_b_c-point_select-4t-r0");
    }

    #[test]
    fn unselected_cells_get_no_sampler_and_no_perf_trial() {
        let s = ProfileSettings {
            enabled: true,
            threads: Some(vec![8]),
            ..ProfileSettings::default()
        };
        let mut session = Session::new(&s, Path::new("/nonexistent")).unwrap();
        let k = CellKey {
            round: 0,
            variant: "v".into(),
            step: "x".into(),
            threads: 1,
        };
        let mut notes = Vec::new();
        assert!(session
            .for_cell(&k, 1, Path::new("/usr/sbin/mariadbd"), &mut notes)
            .is_none());
        assert!(notes.is_empty());
        assert!(Session::new(&ProfileSettings::default(), Path::new("/x")).is_none());
    }
}
