//! The Go benchmark format (golang.org/design/14313-benchmark-format), so that benchstat reads
//! psbench results: configuration lines, then one line per round of each cell, so benchstat
//! sees the repeats. `benchstat -col /variant bench.txt` compares the variants of a study;
//! `benchstat before/bench.txt after/bench.txt` compares two studies.

use crate::report::subject::Subject;
use crate::report::tables::measurements::PERCENTILES;
use crate::results::CellResult;
use std::fmt::Write;

/// Configuration keys are lower case without spaces ("ps_off [cost]" → "ps_off-cost");
/// values are one line.
fn config_line(out: &mut String, key: &str, value: &str) {
    let key: String = key
        .to_lowercase()
        .split(|c: char| c.is_whitespace() || "[](){}".contains(c))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let value = value.replace(['\n', '\r'], " ");
    let _ = writeln!(out, "{key}: {}", value.trim());
}

/// A name key's value may hold neither spaces nor slashes (they separate keys).
fn name_value(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_whitespace() || c == '/' {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// Shortest decimal that reads back as the same number: no rounding in the exchange.
fn value(v: f64) -> String {
    format!("{v}")
}

fn throughput_line(c: &CellResult) -> String {
    let r = &c.resources;
    let mut s = format!(
        "BenchmarkThroughput/step={}/threads={}/variant={} {} {} tps",
        name_value(&c.key.step),
        c.key.threads,
        name_value(&c.key.variant),
        c.transactions.max(1),
        value(c.tps)
    );
    for p in PERCENTILES {
        if let Some(ms) = c.latency_ms.get(p) {
            let _ = write!(s, " {} {p}-ms", value(*ms));
        }
    }
    for (v, unit) in [
        (r.server_cpu_us_per_txn, "server-cpu-us/op"),
        (r.client_cpu_us_per_txn, "client-cpu-us/op"),
        (r.server_cs_per_txn, "server-cs/op"),
        (r.client_cs_per_txn, "client-cs/op"),
        (r.read_kb_per_txn, "rKB/op"),
        (r.write_kb_per_txn, "wKB/op"),
    ] {
        let _ = write!(s, " {} {unit}", value(v));
    }
    s
}

pub fn render(subject: &Subject) -> String {
    let res = &subject.results;
    let mut out = String::new();
    // psbench measures through /proc: the host was Linux. Its architecture is not recorded.
    config_line(&mut out, "goos", "linux");
    config_line(&mut out, "cpu", &res.host.cpu_model);
    config_line(&mut out, "psbench-version", &res.tool_version);
    config_line(&mut out, "study", &res.study.name);
    config_line(&mut out, "host", &res.host.hostname);
    config_line(&mut out, "kernel", &res.host.kernel);
    config_line(&mut out, "cpus", &res.host.cpus.to_string());
    for (v, p) in &res.variants {
        config_line(&mut out, &format!("server-{v}"), &p.server_version);
    }
    // Rounds in the order they ran, so a reader sees the interleaving.
    let mut cells: Vec<&CellResult> = res.cells.iter().filter(|c| c.ok).collect();
    cells.sort_by_key(|c| c.key.round);
    let mut lines: Vec<String> = cells.into_iter().map(throughput_line).collect();
    for c in res.cost.iter().filter(|c| c.ok) {
        lines.push(format!(
            "BenchmarkCost/step={}/variant={} {} {} {COST_UNIT}",
            name_value(&c.step),
            name_value(&c.variant),
            c.counted_transactions().max(1),
            value(c.ir_per_txn)
        ));
    }
    out.push_str(&unit_lines(&lines));
    out.push('\n');
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Instructions per transaction under callgrind: the same on every repeat.
const COST_UNIT: &str = "instructions/op";

/// benchstat's unit metadata (`Unit UNIT KEY=VALUE ...`) for each unit the result lines use,
/// in the order they first appear: throughput is better higher, everything per transaction and
/// latency better lower, and an instruction count is exact (no noise to average out).
fn unit_lines(lines: &[String]) -> String {
    let mut units: Vec<&str> = Vec::new();
    for l in lines {
        // "NAME ITERATIONS VALUE UNIT VALUE UNIT ...": the units are every other field.
        for unit in l.split_whitespace().skip(3).step_by(2) {
            if !units.contains(&unit) {
                units.push(unit);
            }
        }
    }
    let mut out = String::new();
    for unit in units {
        let meta = match unit {
            "tps" => "better=higher",
            COST_UNIT => "assume=exact better=lower",
            _ => "better=lower",
        };
        let _ = writeln!(out, "Unit {unit} {meta}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_keys_and_name_values_are_well_formed() {
        let mut s = String::new();
        config_line(&mut s, "Server A [cost]", "10.11\nx");
        assert_eq!(s, "server-a-cost: 10.11 x\n");
        assert_eq!(name_value("a b/c"), "a_b_c");
    }

    #[test]
    fn every_unit_written_has_its_unit_line() {
        let lines = [
            "BenchmarkThroughput/x 10 5 tps 1 p95-ms".to_string(),
            "BenchmarkCost/x 10 5 instructions/op".to_string(),
        ];
        assert_eq!(
            unit_lines(&lines),
            "Unit tps better=higher\nUnit p95-ms better=lower\nUnit instructions/op assume=exact better=lower\n"
        );
    }
}
