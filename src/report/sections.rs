//! Which tables a report shows, and in what order: the headline a reader looks at first and
//! the details that explain or check it.

use super::grid::Table;
use super::relative_cpu::{self, Side};
use super::subject::Subject;
use super::{
    background, class_table, cost_table, host, hosts, io_regime, rounds_table, slice_table,
    sweep_table, tables,
};

/// The tables a reader looks at first: throughput, changes, cost.
pub fn headline(s: &Subject) -> Vec<Table> {
    let mut t = vec![
        tables::absolute_throughput(s),
        tables::relative_throughput(s),
        relative_cpu::relative_cpu(s, Side::Server),
        relative_cpu::relative_cpu(s, Side::Client),
        tables::ratio_by_threads(s),
    ];
    t.extend(hosts::host_spread(s));
    t.extend(background::background_rate(s));
    t.push(cost_table::cost(s));
    t.extend(sweep_table::table(s));
    t
}

/// The tables that explain a change or check a result: the rounds behind each interval,
/// latency, resources, slices, regime and device IO, the host as probed, validity.
pub fn details(s: &Subject) -> Vec<Table> {
    let mut t = vec![
        rounds_table::per_round(s),
        tables::latency(s),
        tables::resources(s),
    ];
    t.extend(class_table::classes(s));
    t.extend(slice_table::slices(s));
    t.extend([io_regime::table(&s.results), tables::status(s)]);
    t.extend(host::table(s));
    t.push(tables::validity(s));
    t
}

/// Every measurement table in the order a reader wants them.
pub fn measurements(s: &Subject) -> Vec<Table> {
    headline(s).into_iter().chain(details(s)).collect()
}
