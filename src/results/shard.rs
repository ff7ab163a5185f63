//! What a results document records so that a study can be split over hosts and merged
//! (docs/sharding.md): the definition it ran, its share of the rounds, each round's host and
//! variant order, and in a merged document where each part came from.

use serde::{Deserialize, Serialize};

/// One share of a study's rounds: rounds r with r mod `count` = `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    pub index: u32,
    pub count: u32,
    /// Cost mode ran on this shard although it is not shard 0 (asked for on every shard).
    #[serde(default)]
    pub cost_on_every_shard: bool,
}

impl ShardInfo {
    pub fn owns(&self, round: u32) -> bool {
        round % self.count == self.index
    }

    /// This shard's rounds of a study of `total` rounds, in order.
    pub fn rounds(&self, total: u32) -> Vec<u32> {
        (0..total).filter(|r| self.owns(*r)).collect()
    }

    /// The position of `round` among this shard's rounds: what its variant order rotates by,
    /// so that every shard goes through all the orders over its own rounds.
    pub fn local(&self, round: u32) -> u32 {
        round / self.count
    }

    /// Whether this shard runs cost mode.
    pub fn runs_cost(&self) -> bool {
        self.index == 0 || self.cost_on_every_shard
    }

    /// `2/5` (from 0), for messages.
    pub fn describe(&self) -> String {
        format!("{}/{}", self.index, self.count)
    }
}

/// One throughput round as it ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRecord {
    pub round: u32,
    /// The host name (or `PSBENCH_HOST_NAME`) of the machine that ran it.
    pub host: String,
    /// The variants in the order they ran.
    pub order: Vec<String>,
}

/// One results document merged into another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MergedPart {
    /// Where it was read from.
    pub path: String,
    pub shard: Option<ShardInfo>,
    pub host: String,
    pub seed: u64,
    pub rounds: Vec<u32>,
    /// Whether its cost results were kept (the first part with cost results).
    pub cost_kept: bool,
    /// Variant → SHA-256 of the server binary it ran on this host, where a variant's build from
    /// one source, flag set and compiler gave another binary than on the first host.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub binaries: std::collections::BTreeMap<String, String>,
}

/// The sharding record of a results document.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sharding {
    /// SHA-256 of the study definition as given (overrides applied, releases not yet
    /// resolved to paths, which differ between hosts): shards of one study share it.
    #[serde(default)]
    pub definition_sha256: String,
    /// This document's share of the rounds; absent when it holds them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<RoundRecord>,
    /// A merged document: the documents it was made from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<MergedPart>,
}

impl Sharding {
    pub fn is_empty(&self) -> bool {
        *self == Sharding::default()
    }

    /// The host that ran `round`, when recorded.
    pub fn host_of(&self, round: u32) -> Option<&str> {
        self.rounds
            .iter()
            .find(|r| r.round == round)
            .map(|r| r.host.as_str())
    }

    /// The distinct hosts of the recorded rounds, in order of first appearance by round.
    pub fn hosts(&self) -> Vec<String> {
        let mut rounds = self.rounds.clone();
        rounds.sort_by_key(|r| r.round);
        let mut out: Vec<String> = Vec::new();
        for r in rounds {
            if !out.contains(&r.host) {
                out.push(r.host);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_rounds_and_rotate_by_their_own_count() {
        let s = ShardInfo {
            index: 1,
            count: 2,
            cost_on_every_shard: false,
        };
        assert_eq!(s.rounds(7), [1, 3, 5]);
        // Rounds 1, 3, 5 are this shard's 0th, 1st, 2nd: with two variants its orders
        // alternate, although every global round it runs is odd.
        assert_eq!(
            s.rounds(7).iter().map(|r| s.local(*r)).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert!(!s.runs_cost());
        let whole = ShardInfo {
            index: 0,
            count: 1,
            cost_on_every_shard: false,
        };
        assert_eq!(whole.rounds(3), [0, 1, 2]);
        assert_eq!(whole.local(2), 2);
    }
}
