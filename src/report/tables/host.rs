//! The host a study ran on, as the study measured it: how long a wake-up takes between two
//! CPUs and on one, the time the hypervisor stole, the CPU frequency governor, how much the
//! base varied from round to round on its own (its A/A spread), and where each variant's
//! server and client ran when the study placed them; and the finding when a 1-thread
//! transaction is short enough that the host's wake-ups, not the server, set its pace.

use crate::report::cells::{rounds, slots};
use crate::report::grid::{label, Table, Value};
use crate::report::subject::Subject;
use crate::results::{HostProbe, StudyResults};
use crate::stats::median;

/// A 1-thread transaction shorter than this many cross-CPU round trips is paced by the host.
const WAKEUPS_PER_TRANSACTION: f64 = 4.0;

fn us(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0} µs")
    } else {
        format!("{v:.1} µs")
    }
}

/// A whole number with thousands separated: 11740.4 → "11,740".
pub fn whole(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn pct(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

fn base(res: &StudyResults) -> Option<String> {
    (!res.study.variants.is_empty()).then(|| res.study.base_variant().to_string())
}

/// The base's successful throughput cells of a (step, threads) that count transactions.
fn base_tps(res: &StudyResults, base: &str, step: &str, t: u32) -> Vec<f64> {
    rounds(res, base, step, t)
        .filter(|c| c.ok && c.tps > 0.0 && c.insert_benchmark.is_none())
        .map(|c| c.tps)
        .collect()
}

/// Sample standard deviation of ln(throughput) over rounds: the base's relative
/// round-to-round spread when nothing changed between its rounds. None below two rounds.
pub fn aa_spread(tps: &[f64]) -> Option<f64> {
    if tps.len() < 2 {
        return None;
    }
    let logs: Vec<f64> = tps.iter().map(|v| v.ln()).collect();
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    let var = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (logs.len() - 1) as f64;
    Some(var.sqrt())
}

fn probe_rows(p: &HostProbe, prefix: &str) -> Vec<[String; 2]> {
    let mut rows = vec![[
        format!("{prefix}CPUs psbench may use"),
        format!("{} ({})", p.cpus_allowed, p.cpus_allowed.len()),
    ]];
    match &p.wakeup {
        Some(w) => {
            if let (Some(x), Some([a, b])) = (w.cross_cpu_us, w.cross_cpus) {
                rows.push([
                    format!("{prefix}wake-up round trip, two CPUs ({a} and {b})"),
                    format!("{} (median of {})", us(x), whole(w.round_trips as f64)),
                ]);
            }
            rows.push([
                format!("{prefix}wake-up round trip, one CPU ({})", w.same_cpu),
                format!(
                    "{} (median of {})",
                    us(w.same_cpu_us),
                    whole(w.round_trips as f64)
                ),
            ]);
        }
        None => rows.push([
            format!("{prefix}wake-up round trip"),
            "not measured (see Notes)".into(),
        ]),
    }
    rows.push([
        format!("{prefix}CPU time stolen by the hypervisor"),
        match p.steal_share() {
            Some(s) => format!("{} of {:.0} CPU-seconds", pct(s), p.cpu_time_s),
            None => "not measured (the study has not finished)".into(),
        },
    ]);
    rows.push([
        format!("{prefix}CPU frequency governor"),
        p.governor.clone(),
    ]);
    rows
}

/// The base's A/A spread of each step, a row each: "1 thread 2.1%, 4 threads 3.0%".
fn aa_rows(res: &StudyResults) -> Vec<[String; 2]> {
    let Some(base) = base(res) else {
        return Vec::new();
    };
    let mut rows: Vec<[String; 2]> = Vec::new();
    for (step, t) in slots(res) {
        let Some(sd) = aa_spread(&base_tps(res, &base, &step, t)) else {
            continue;
        };
        let what = format!("A/A spread of {base}, {step}");
        let entry = format!("{t} thr {}", pct(sd));
        match rows.iter_mut().find(|r| r[0] == what) {
            Some(r) => r[1] = format!("{}, {entry}", r[1]),
            None => rows.push([what, entry]),
        }
    }
    rows
}

fn placement_rows(res: &StudyResults) -> Vec<[String; 2]> {
    res.variants
        .iter()
        .filter_map(|(name, prov)| {
            let p = prov.placement.as_ref()?;
            let server: Vec<String> = p.server.iter().map(|l| l.to_string()).collect();
            let all = if p.server.len() == 1 { "all " } else { "" };
            Some([
                format!("placement of {name}, read back"),
                format!(
                    "server CPUs {} ({all}{} threads), client CPUs {}",
                    server.join(" / "),
                    p.server_threads,
                    p.client
                ),
            ])
        })
        .collect()
}

/// The host table; none for a document from before psbench probed its host.
pub fn table(s: &Subject) -> Option<Table> {
    let res = &s.results;
    let placed = res.variants.values().any(|p| p.placement.is_some());
    if res.host_probes.is_empty() && !placed {
        return None;
    }
    let many = res.host_probes.len() > 1;
    let mut rows: Vec<[String; 2]> = Vec::new();
    for p in &res.host_probes {
        let prefix = if many {
            format!("{}: ", p.host)
        } else {
            String::new()
        };
        rows.extend(probe_rows(p, &prefix));
    }
    rows.extend(aa_rows(res));
    rows.extend(placement_rows(res));
    Some(Table {
        id: "host".into(),
        title: "Host".into(),
        note: "Measured by the study: a wake-up round trip is one byte sent by a thread to another blocked in read and sent back (a unix socket pair, as a blocking client and server do per statement), median over round trips at the study's start; stolen time is over the study's run (/proc/stat); the A/A spread is the standard deviation of the log of the base's throughput over its rounds (about its relative round-to-round spread with nothing changed); placement is each thread's Cpus_allowed_list after the variant's server started.".into(),
        columns: vec![label("measure"), label("value")],
        rows: rows
            .into_iter()
            .map(|[a, b]| vec![Value::Text(a), Value::Text(b)])
            .collect(),
        legend: Vec::new(),
        when_empty: String::new(),
    })
}

/// One sentence when a cross-CPU wake-up round trip is more than a quarter of a 1-thread
/// transaction of the base: that throughput measures the host's wake-ups.
pub fn findings(s: &Subject) -> Vec<String> {
    let res = &s.results;
    let Some(base) = base(res) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for p in &res.host_probes {
        let Some(rtt) = p.wakeup.as_ref().and_then(|w| w.cross_cpu_us) else {
            continue;
        };
        let paced: Vec<String> = slots(res)
            .into_iter()
            .filter(|(_, t)| *t == 1)
            .filter_map(|(step, _)| {
                let tps = base_tps(res, &base, &step, 1);
                let txn_us = 1e6 / median(&tps);
                (!tps.is_empty() && rtt * WAKEUPS_PER_TRANSACTION > txn_us)
                    .then(|| format!("{step}: {} at {}/s", us(txn_us), whole(median(&tps))))
            })
            .collect();
        if paced.is_empty() {
            continue;
        }
        let host = if res.host_probes.len() > 1 {
            format!("on {}", p.host)
        } else {
            "on this host".into()
        };
        out.push(format!(
            "A wake-up round trip between two CPUs takes {} {host}, more than a quarter of a 1-thread transaction of {base} ({}): 1-thread throughput {host} measures its wake-ups, not the server.",
            us(rtt),
            paced.join("; ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{aa_spread, whole};

    #[test]
    fn whole_numbers_group_thousands() {
        assert_eq!(whole(11740.4), "11,740");
        assert_eq!(whole(999.0), "999");
        assert_eq!(whole(1_234_567.0), "1,234,567");
    }

    #[test]
    fn the_aa_spread_is_the_sd_of_log_throughput() {
        assert_eq!(aa_spread(&[100.0]), None);
        assert_eq!(aa_spread(&[100.0, 100.0, 100.0]), Some(0.0));
        // Rounds of 100 and 110: ln 1.1 apart, sd ln(1.1)/√2.
        let sd = aa_spread(&[100.0, 110.0]).unwrap();
        assert!((sd - 1.1f64.ln() / 2f64.sqrt()).abs() < 1e-12, "{sd}");
    }
}
