//! What the tests of sharded studies share: a tiny study and the rounds a document recorded.

use serde_json::Value;

/// Two variants (PS off, default), point selects at 1 thread, 4 rounds of 0.5 s: a study
/// that shards in seconds.
pub const TINY_STUDY: &str = r#"
name = "shards"
rounds = 4
threads = [1]
duration = 0.5
warmup = 0.1
[dataset]
table_size = 500
[[variant]]
name = "a"
scenario = "ps_off"
[[variant]]
name = "b"
scenario = "default"
[[workload]]
workload = "oltp_point_select"
"#;

/// (round, host, order) of each recorded round.
pub fn rounds(r: &Value) -> Vec<(u64, String, String)> {
    r["sharding"]["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let order: Vec<&str> = x["order"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            (
                x["round"].as_u64().unwrap(),
                x["host"].as_str().unwrap().to_string(),
                order.join(""),
            )
        })
        .collect()
}
