//! Which tables a report shows, and in what order: the headline a reader looks at first and
//! the details that explain or check it.

use super::grid::Table;
use super::subject::Subject;
use super::{background, cost_table, host, hosts, io_regime, tables};

/// The tables a reader looks at first: throughput, changes, cost.
pub fn headline(s: &Subject) -> Vec<Table> {
    let mut t = vec![
        tables::absolute_throughput(s),
        tables::relative_throughput(s),
        tables::ratio_by_threads(s),
    ];
    t.extend(hosts::host_spread(s));
    t.extend(background::background_rate(s));
    t.push(cost_table::cost(s));
    t
}

/// The tables that explain a change or check a result: latency, resources, regime and
/// device IO, the host as probed, validity.
pub fn details(s: &Subject) -> Vec<Table> {
    let mut t = vec![
        tables::latency(s),
        tables::resources(s),
        io_regime::table(&s.results),
        tables::status(s),
    ];
    t.extend(host::table(s));
    t.push(tables::validity(s));
    t
}

/// Every measurement table in the order a reader wants them.
pub fn measurements(s: &Subject) -> Vec<Table> {
    headline(s).into_iter().chain(details(s)).collect()
}
