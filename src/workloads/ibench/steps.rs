//! The step sequence (docs/insert-benchmark.md#the-steps): what each step inserts, deletes and queries.

use super::options::IbenchOptions;
use crate::error::usage;
use anyhow::Result;

/// The published sequence, in its order.
pub const ALL_STEPS: &[&str] = &[
    "l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000",
];

/// Rows per statement of l.x's single insert and of l.i0.
const LOAD_ROWS_PER_COMMIT: u64 = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryShape {
    /// Covering range scans on the three secondary indexes.
    Range,
    /// 10-key multi-gets on the primary key.
    Point,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StepKind {
    /// Inserts as fast as possible, optionally with a FIFO delete per insert.
    Load { deletes: bool },
    /// One 100-row insert per table, then the three secondary indexes.
    Index,
    /// A closed-loop query worker per table with writers throttled to `rate` rows/s.
    Query { shape: QueryShape, rate: u64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub name: String,
    pub kind: StepKind,
    /// Rows per INSERT (and per DELETE) statement; each is its own transaction.
    pub rows_per_commit: u64,
    /// INSERT statements per table.
    pub statements: u64,
}

impl Step {
    /// Rows each table receives.
    pub fn rows(&self) -> u64 {
        self.statements * self.rows_per_commit
    }
    pub fn deletes(&self) -> bool {
        match self.kind {
            StepKind::Load { deletes } => deletes,
            StepKind::Index => false,
            StepKind::Query { .. } => true,
        }
    }
    pub fn is_query(&self) -> bool {
        matches!(self.kind, StepKind::Query { .. })
    }
    /// Writers' target rows/s per table (query steps).
    pub fn rate(&self) -> Option<u64> {
        match self.kind {
            StepKind::Query { rate, .. } => Some(rate),
            _ => None,
        }
    }
    /// Creates the database and its tables first.
    pub fn creates_tables(&self) -> bool {
        self.name == "l.i0"
    }
}

fn statements(rows: u64, per: u64) -> u64 {
    rows.div_ceil(per)
}

/// One step by name: the ten published ones, and `qrR`/`qpR` for any rate R.
pub fn step(name: &str, o: &IbenchOptions) -> Result<Step> {
    let load = |deletes, per: u64, rows: u64| Step {
        name: name.to_string(),
        kind: StepKind::Load { deletes },
        rows_per_commit: per,
        statements: statements(rows, per),
    };
    let s = match name {
        "l.i0" => load(false, LOAD_ROWS_PER_COMMIT, o.rows),
        "l.x" => Step {
            name: name.into(),
            kind: StepKind::Index,
            rows_per_commit: LOAD_ROWS_PER_COMMIT,
            statements: 1,
        },
        "l.i1" => load(true, 50, o.rows_i1),
        "l.i2" => load(true, 5, o.rows_i2),
        _ => {
            let shape = match name.get(..2) {
                Some("qr") => QueryShape::Range,
                Some("qp") => QueryShape::Point,
                _ => return Err(unknown(name)),
            };
            let rate: u64 = name[2..].parse().map_err(|_| unknown(name))?;
            if rate == 0 {
                return Err(unknown(name));
            }
            // Fewer rows per second than per statement: smaller statements (docs/insert-benchmark.md#the-steps).
            let per = 50.min(rate);
            Step {
                name: name.into(),
                kind: StepKind::Query { shape, rate },
                rows_per_commit: per,
                statements: statements(o.query_seconds.max(1) * rate, per),
            }
        }
    };
    Ok(s)
}

fn unknown(name: &str) -> anyhow::Error {
    usage(format!(
        "unknown Insert Benchmark step '{name}': use {} (or qrR/qpR for another rate R)",
        ALL_STEPS.join(", ")
    ))
}

/// A comma-separated list (`all` = the published sequence).
pub fn parse_steps(list: &str, o: &IbenchOptions) -> Result<Vec<Step>> {
    let names: Vec<&str> = if list.trim() == "all" {
        ALL_STEPS.to_vec()
    } else {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect()
    };
    if names.is_empty() {
        return Err(usage("--steps needs at least one step"));
    }
    names.into_iter().map(|n| step(n, o)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_steps_have_the_specs_shapes() {
        let o = IbenchOptions {
            rows: 1050,
            rows_i1: 4000,
            rows_i2: 1000,
            query_seconds: 1800,
            ..Default::default()
        };
        let all = parse_steps("all", &o).unwrap();
        assert_eq!(all.len(), 10);
        assert_eq!((all[0].rows_per_commit, all[0].rows()), (100, 1100));
        assert_eq!(all[1].kind, StepKind::Index);
        assert_eq!((all[2].rows_per_commit, all[2].statements), (50, 80));
        assert_eq!((all[3].rows_per_commit, all[3].statements), (5, 200));
        // 1800 s × R rows in 50-row statements: 3,600 / 18,000 / 36,000 statements.
        let q: Vec<u64> = all[4..].iter().map(|s| s.statements).collect();
        assert_eq!(q, [3600, 3600, 18000, 18000, 36000, 36000]);
        assert_eq!(
            all[5].kind,
            StepKind::Query {
                shape: QueryShape::Point,
                rate: 100
            }
        );
        let slow = step("qr20", &o).unwrap();
        assert_eq!((slow.rows_per_commit, slow.rows()), (20, 36000));
    }

    #[test]
    fn unknown_steps_are_usage_errors() {
        for bad in ["l.i9", "qx100", "qr", "qr0", "qrfast", ""] {
            let e = parse_steps(bad, &IbenchOptions::default()).unwrap_err();
            assert!(crate::error::is_usage(&e), "{bad}: {e}");
        }
    }
}
