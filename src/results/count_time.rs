//! How long one of cost mode's counts took on this host, as a finished study recorded it: what
//! `psbench run --plan` expects of the next count of the same engine and step.

/// One count of a finished study.
#[derive(Clone, Debug, PartialEq)]
pub struct CountTime {
    /// Its server's engine as documents and the history write it: `mariadb`, `mysql`,
    /// `postgres`.
    pub engine: String,
    /// The step counted (`point_select`, `l.i0`).
    pub step: String,
    /// Wall seconds, its server's start under valgrind included when it was the variant's
    /// first step.
    pub seconds: f64,
    /// Its largest window's transactions (or rows): a count of twice as many takes about
    /// twice as long.
    pub events: Option<u32>,
}
