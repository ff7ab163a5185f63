//! A study's progress: a bar on a terminal, one line per step otherwise, and notes that
//! stay above the bar.

use indicatif::{ProgressBar, ProgressStyle};

pub struct Progress {
    bar: ProgressBar,
    visible: bool,
}

impl Progress {
    pub fn new(total: u64) -> Self {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} ETA {eta} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        let visible = !bar.is_hidden();
        Progress { bar, visible }
    }

    pub fn start(&self, what: &str) {
        self.bar.set_message(what.to_string());
        if !self.visible {
            eprintln!(
                "[{}/{}] {what}",
                self.bar.position() + 1,
                self.bar.length().unwrap_or(0)
            );
        }
    }

    /// More steps than first counted (a release bisection chose to measure).
    pub fn grow(&self, steps: u64) {
        self.bar.inc_length(steps);
    }

    pub fn done(&self) {
        self.bar.inc(1);
    }

    pub fn note(&self, line: &str) {
        if self.visible {
            self.bar.println(line);
        } else {
            eprintln!("{line}");
        }
    }

    /// Clears the bar; the notes stay.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
