//! A study's `profile` key as recorded: `profile = true`, or a `[profile]` table that picks
//! the cells and the sampling frequency. Which cells it selects, and its checks against the
//! study, are profile/'s (profile/settings.rs).

use serde::{Deserialize, Deserializer, Serialize};

/// Default sampling frequency: low enough to cost the server little (4 kHz with call graphs
/// cut QPS by about 20% here), odd so that it does not beat with periodic work.
pub const DEFAULT_FREQUENCY: u32 = 499;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileSettings {
    pub enabled: bool,
    /// Samples per second of CPU (`perf record -F`).
    pub frequency: u32,
    /// Only cells at these thread counts (default: all).
    pub threads: Option<Vec<u32>>,
    /// Only these workload steps, by label (default: all).
    pub steps: Option<Vec<String>>,
    /// Only these rounds, counted from 0 (default: the first), so that the other rounds'
    /// throughput carries no sampling overhead.
    pub rounds: Vec<u32>,
}

impl Default for ProfileSettings {
    fn default() -> Self {
        ProfileSettings {
            enabled: false,
            frequency: DEFAULT_FREQUENCY,
            threads: None,
            steps: None,
            rounds: vec![0],
        }
    }
}

/// The `[profile]` table as written; `enabled` defaults to true there.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileTable {
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default)]
    frequency: Option<u32>,
    #[serde(default)]
    threads: Option<Vec<u32>>,
    #[serde(default)]
    steps: Option<Vec<String>>,
    #[serde(default)]
    rounds: Option<Vec<u32>>,
}

fn yes() -> bool {
    true
}

impl From<ProfileTable> for ProfileSettings {
    fn from(t: ProfileTable) -> Self {
        let d = ProfileSettings::default();
        ProfileSettings {
            enabled: t.enabled,
            frequency: t.frequency.unwrap_or(d.frequency),
            threads: t.threads,
            steps: t.steps,
            rounds: t.rounds.unwrap_or(d.rounds),
        }
    }
}

/// `profile = true|false` or a `[profile]` table.
impl<'de> Deserialize<'de> for ProfileSettings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ProfileSettings;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true, false or a [profile] table")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(ProfileSettings {
                    enabled: v,
                    ..ProfileSettings::default()
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                m: A,
            ) -> Result<Self::Value, A::Error> {
                let t = ProfileTable::deserialize(serde::de::value::MapAccessDeserializer::new(m))?;
                Ok(t.into())
            }
        }
        d.deserialize_any(Visitor)
    }
}
