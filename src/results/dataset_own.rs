//! A study's dataset of the user's own files, in the words the plan and runs use.

use super::study::Dataset;

impl Dataset {
    /// Whether the dataset is the user's own (`sql` or `load`): then sysbench's tables are
    /// made only where `tables` sizes them.
    pub fn is_own(&self) -> bool {
        !self.sql.is_empty() || self.load.is_some()
    }

    /// The user's own dataset in words: its files, then its load script.
    pub fn own_words(&self) -> String {
        let base = |p: &str| {
            std::path::Path::new(p)
                .file_name()
                .map_or(p.to_string(), |n| n.to_string_lossy().into_owned())
        };
        let mut parts: Vec<String> = self.sql.iter().map(|f| base(f)).collect();
        if let Some(l) = &self.load {
            parts.push(format!(
                "{} run {} times over {} connection(s)",
                base(&l.script),
                l.events,
                l.threads
            ));
        }
        parts.join(", then ")
    }
}
