//! Which tables a report shows, and in what order: the headline a reader looks at first and
//! the details that explain or check it.

use super::relative_cpu::{self, Side};
use super::{
    background, classes, cost, host, io_regime, measurements, rounds, shard_hosts, slices, sweep,
};
use crate::report::grid::Table;
use crate::report::subject::Subject;

/// The tables a reader looks at first: throughput, changes, cost.
pub fn headline(s: &Subject) -> Vec<Table> {
    let mut t = vec![
        measurements::absolute_throughput(s),
        measurements::relative_throughput(s),
        relative_cpu::relative_cpu(s, Side::Server),
        relative_cpu::relative_cpu(s, Side::Client),
        measurements::ratio_by_threads(s),
    ];
    t.extend(shard_hosts::host_spread(s));
    t.extend(background::background_rate(s));
    t.push(cost::cost(s));
    t.extend(sweep::table(s));
    t
}

/// The tables that explain a change or check a result: the rounds behind each interval,
/// latency, resources, slices, regime and device IO, the host as probed, validity.
pub fn details(s: &Subject) -> Vec<Table> {
    let mut t = vec![
        rounds::per_round(s),
        measurements::latency(s),
        measurements::resources(s),
    ];
    t.extend(classes::classes(s));
    t.extend(slices::slices(s));
    t.extend([io_regime::table(&s.results), measurements::status(s)]);
    t.extend(host::table(s));
    t.push(measurements::validity(s));
    t
}

/// Every measurement table in the order a reader wants them.
pub fn measurements(s: &Subject) -> Vec<Table> {
    headline(s).into_iter().chain(details(s)).collect()
}
