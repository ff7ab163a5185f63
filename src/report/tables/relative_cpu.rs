//! CPU per transaction relative to the base, the way the published studies report it: the
//! server's (and the client's) CPU microseconds per transaction of each variant over the
//! base's, paired within rounds like throughput, with the same intervals and verdicts. On a
//! busy or small host CPU per transaction can resolve a change that throughput cannot.

use crate::report::cells::slots;
use crate::report::grid::{change_legend, column, label, Change, Kind, Sense, Table};
use crate::report::subject::{Pair, Subject};
use crate::report::tables::measurements::{
    compare_metric, compare_tps, legend_for, relative_rows, throughput_pairs,
};
use crate::results::CellResult;
use crate::stats::Comparison;

/// Whose CPU a table or finding is about.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Server,
    Client,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Server => "server",
            Side::Client => "client",
        }
    }

    fn metric(self) -> fn(&CellResult) -> f64 {
        match self {
            Side::Server => |c| c.resources.server_cpu_us_per_txn,
            Side::Client => |c| c.resources.client_cpu_us_per_txn,
        }
    }
}

/// One side's CPU per transaction of `pair.new` against `pair.base` at a (step, threads).
pub fn compare_cpu(
    s: &Subject,
    pair: &Pair,
    step: &str,
    threads: u32,
    side: Side,
) -> Option<Comparison> {
    compare_metric(s, pair, step, threads, side.metric())
}

/// The relative CPU table of one side: rows (step, threads), a column per pair.
pub fn relative_cpu(s: &Subject, side: Side) -> Table {
    let pairs = throughput_pairs(s);
    let mut columns = vec![label("step"), label("threads")];
    columns.extend(pairs.iter().map(|p| column(p.label(), Kind::Change)));
    let rows = relative_rows(s, &pairs, |p, step, t| {
        compare_cpu(s, p, step, t, side).map(Change::cost)
    });
    Table {
        id: format!("relative_{}_cpu", side.name()),
        title: format!(
            "{} CPU per transaction relative to the base",
            capitalised(side.name())
        ),
        note: format!(
            "new / base of the {} CPU microseconds per transaction (per operation for Insert Benchmark steps), formed within each round like throughput, with its 95% t interval over rounds: above 1.0 the variant uses more CPU for the same work.",
            side.name()
        ),
        legend: legend_for(&rows, change_legend(s.threshold(), Sense::Cost)),
        columns,
        rows,
        when_empty: "No variant to compare with a base.".into(),
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Percent change with its sign and interval: "+6.0% [+2.0%, +10.0%]".
pub fn signed_change(c: &Comparison) -> String {
    let p = |x: f64| format!("{:+.1}%", (x - 1.0) * 100.0);
    if c.low.is_finite() && c.high.is_finite() {
        format!("{} [{}, {}]", p(c.ratio), p(c.low), p(c.high))
    } else {
        p(c.ratio)
    }
}

/// The server's CPU per transaction where it resolves a change: said once per (pair, step,
/// threads), and marked when throughput could not resolve one there.
pub fn findings(s: &Subject) -> Vec<String> {
    let mut out = Vec::new();
    for p in throughput_pairs(s) {
        for (step, t) in slots(&s.results) {
            let Some(cpu) = compare_cpu(s, p, &step, t, Side::Server) else {
                continue;
            };
            if !cpu.verdict.called() {
                continue;
            }
            let more = if cpu.ratio > 1.0 { "more" } else { "less" };
            let tps = compare_tps(s, p, &step, t);
            let unresolved = tps.is_some_and(|c| !c.verdict.called());
            let tail = match tps {
                Some(c) if unresolved => format!(
                    " — a change throughput did not resolve here ({})",
                    signed_change(&c)
                ),
                _ => String::new(),
            };
            out.push(format!(
                "{step}: {} uses {more} server CPU per transaction than {} at {t} thread{}: {} over {} rounds{tail}.",
                p.new,
                p.base,
                if t == 1 { "" } else { "s" },
                signed_change(&cpu),
                cpu.rounds,
            ));
        }
    }
    out
}
