//! What every part of a study's run shares: the request, the study as run, the prepared
//! datadir of each server binary, this run's sandbox-name prefix and the progress display;
//! and the two things each part does the same way (seeds, provenance).

use super::checkpoint::{Checkpoint, Rounds};
use super::progress::Progress;
use crate::results::study::Study;
use crate::results::{StudyResults, VariantProvenance};
use crate::server::Home;
use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// A study to run, and where.
pub struct Request {
    pub study: Study,
    pub origin: String,
    pub out_dir: PathBuf,
    pub home: Home,
    /// Continue the results document in `out_dir` instead of starting a new one.
    pub resume: bool,
    /// Run only this share of the rounds (a new document; a resumed one keeps its own).
    pub shard: Option<crate::results::ShardInfo>,
    /// Handed the document so far once the counts are in and after each round but the last.
    pub checkpoint: Option<Checkpoint>,
}

/// One run context, passed to cost mode and to the throughput rounds.
pub struct RunContext<'a> {
    pub req: &'a Request,
    pub study: &'a Study,
    pub datadirs: &'a BTreeMap<Option<PathBuf>, super::dataset::Prepared>,
    pub prefix: &'a str,
    pub progress: &'a Progress,
    pub rounds: &'a RefCell<Rounds>,
}

impl RunContext<'_> {
    /// A throughput round ended: the report so far, unless the finished study's follows.
    pub fn round_done(&self, res: &StudyResults) {
        let standing = {
            let mut r = self.rounds.borrow_mut();
            r.done += 1;
            r.standing()
        };
        if standing.rounds_done < standing.rounds {
            self.tell(res, &standing);
        }
    }

    /// The checkpoint's text, if it has one, above the progress bar.
    pub fn tell(&self, res: &StudyResults, standing: &super::checkpoint::Standing) {
        let text = self.req.checkpoint.as_ref().and_then(|c| c(res, standing));
        if let Some(text) = text {
            self.progress.note(text.trim_end());
        }
    }
}

/// Cost mode's base seed, the same in every run: its counts then repeat between runs as well
/// as between variants (with a new seed per run, sysbench read-only counts on PostgreSQL moved
/// 1.1% from one run of pg-sweep to the next, every release alike), so that the results
/// history can compare them. Throughput rounds keep a new seed per run.
pub const COST_SEED: u64 = 0x7073_6265_6e63_6801;

/// The same seed for every variant of a (round, step, threads), so that they see the same draws.
pub fn cell_seed(base: u64, round: u32, step: &str, threads: u32) -> u64 {
    let mut h = DefaultHasher::new();
    (base, round, step, threads).hash(&mut h);
    h.finish() | 1
}

/// Record a variant's provenance the first time it starts, with the checksum of its binary.
pub fn record(res: &mut StudyResults, key: String, mut prov: VariantProvenance) {
    if res.variants.contains_key(&key) {
        return;
    }
    if prov.server_sha256.is_empty() {
        prov.server_sha256 =
            crate::server::fetch::sha256(std::path::Path::new(&prov.server_binary))
                .unwrap_or_default();
    }
    res.variants.insert(key, prov);
}
