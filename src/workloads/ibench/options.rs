//! The Insert Benchmark's options (docs/insert-benchmark.md#options), with the original's value domains. Sizes default
//! to a scale that finishes in minutes; the published small-server runs use
//! `--rows 30000000 --rows-i1 40000000 --rows-i2 10000000 --query-seconds 1800`.

use crate::error::usage;
use anyhow::Result;
use serde::{Deserialize, Serialize};

#[derive(clap::Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IbenchOptions {
    /// Clients, each with its own table pi1..piN (docs/insert-benchmark.md#tables-and-rows).
    #[arg(long, default_value_t = 1, help_heading = "Insert Benchmark")]
    pub clients: u32,
    /// X: rows per table loaded by l.i0 (rounded up to whole 100-row statements).
    #[arg(long, default_value_t = 1_000_000, help_heading = "Insert Benchmark")]
    pub rows: u64,
    /// Y: rows per table inserted and deleted by l.i1 (50 per statement).
    #[arg(long, default_value_t = 400_000, help_heading = "Insert Benchmark")]
    pub rows_i1: u64,
    /// Z: rows per table inserted and deleted by l.i2 (5 per statement).
    #[arg(long, default_value_t = 100_000, help_heading = "Insert Benchmark")]
    pub rows_i2: u64,
    /// Length of each query step when its writers keep their rate: the step inserts
    /// this × R rows per table (the original's 1800 s).
    #[arg(long, default_value_t = 300, help_heading = "Insert Benchmark")]
    pub query_seconds: u64,
    /// Seconds of the cleanup before the first query step; default
    /// min(1200, 60 + rows loaded / 1e6) as in the original's scripts.
    #[arg(long, help_heading = "Insert Benchmark")]
    pub cleanup_seconds: Option<f64>,
    /// LIMIT of range queries and IN-list length of point queries.
    #[arg(long, default_value_t = 10, help_heading = "Insert Benchmark")]
    pub rows_per_query: u32,
    #[arg(long, default_value_t = 10, help_heading = "Insert Benchmark")]
    pub data_length_min: u32,
    #[arg(long, default_value_t = 20, help_heading = "Insert Benchmark")]
    pub data_length_max: u32,
    /// Share of the data column that is random (×0.75, as the original's base64 allowance).
    #[arg(long, default_value_t = 50, help_heading = "Insert Benchmark")]
    pub data_random_pct: u32,
    #[arg(long, default_value_t = 1000, help_heading = "Insert Benchmark")]
    pub cashregisters: u32,
    #[arg(long, default_value_t = 10000, help_heading = "Insert Benchmark")]
    pub products: u32,
    #[arg(long, default_value_t = 100000, help_heading = "Insert Benchmark")]
    pub customers: u32,
    #[arg(long, default_value_t = 500, help_heading = "Insert Benchmark")]
    pub max_price: u32,
    /// Storage engine of the tables (MySQL-family servers; PostgreSQL has none).
    #[arg(long, default_value = "InnoDB", help_heading = "Insert Benchmark")]
    pub engine: String,
    /// Give up a step after this many seconds (flagged incomplete); 0 = never.
    #[arg(long, default_value_t = 0.0, help_heading = "Insert Benchmark")]
    pub max_seconds: f64,
}

impl Default for IbenchOptions {
    fn default() -> Self {
        IbenchOptions {
            clients: 1,
            rows: 1_000_000,
            rows_i1: 400_000,
            rows_i2: 100_000,
            query_seconds: 300,
            cleanup_seconds: None,
            rows_per_query: 10,
            data_length_min: 10,
            data_length_max: 20,
            data_random_pct: 50,
            cashregisters: 1000,
            products: 10000,
            customers: 100000,
            max_price: 500,
            engine: "InnoDB".into(),
            max_seconds: 0.0,
        }
    }
}

impl IbenchOptions {
    pub fn validate(&self) -> Result<()> {
        let positive = [
            ("--clients", self.clients as u64),
            ("--rows", self.rows),
            ("--rows-per-query", self.rows_per_query as u64),
            ("--cashregisters", self.cashregisters as u64),
            ("--products", self.products as u64),
            ("--customers", self.customers as u64),
            ("--max-price", self.max_price as u64),
        ];
        if let Some((name, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(usage(format!("{name} must be at least 1")));
        }
        if self.clients > 1000 {
            return Err(usage(format!(
                "--clients {} is more tables than psbench runs (at most 1000)",
                self.clients
            )));
        }
        if self.data_length_min > self.data_length_max || self.data_length_max > 4000 {
            return Err(usage(format!(
                "--data-length-min {} / --data-length-max {}: need min <= max <= 4000 (the column is VARCHAR(4000))",
                self.data_length_min, self.data_length_max
            )));
        }
        if self.data_random_pct > 100 {
            return Err(usage(format!(
                "--data-random-pct must be 0..100 (got {})",
                self.data_random_pct
            )));
        }
        if !self
            .engine
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(usage(format!(
                "--engine '{}' is not an engine name",
                self.engine
            )));
        }
        if let Some(s) = self.cleanup_seconds {
            if !s.is_finite() || s < 0.0 {
                return Err(usage(format!(
                    "--cleanup-seconds must be 0 or more (got {s})"
                )));
            }
        }
        if !self.max_seconds.is_finite() || self.max_seconds < 0.0 {
            return Err(usage(format!(
                "--max-seconds must be 0 or more (got {})",
                self.max_seconds
            )));
        }
        Ok(())
    }

    /// The pause before the first query step (docs/insert-benchmark.md#cleanup-before-the-query-steps).
    pub fn cleanup_duration(&self) -> f64 {
        self.cleanup_seconds.unwrap_or_else(|| {
            let loaded = self.rows as f64 * self.clients as f64;
            (60.0 + loaded / 1e6).min(1200.0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_bad_values_are_usage_errors() {
        assert!(IbenchOptions::default().validate().is_ok());
        for bad in [
            IbenchOptions {
                clients: 0,
                ..Default::default()
            },
            IbenchOptions {
                data_length_min: 30,
                ..Default::default()
            },
            IbenchOptions {
                engine: "x; drop".into(),
                ..Default::default()
            },
            IbenchOptions {
                cleanup_seconds: Some(-1.0),
                ..Default::default()
            },
        ] {
            let e = bad.validate().unwrap_err();
            assert!(crate::error::is_usage(&e), "{e}");
        }
    }

    #[test]
    fn cleanup_follows_the_scripts_formula() {
        let o = IbenchOptions {
            clients: 20,
            rows: 10_000_000,
            ..Default::default()
        };
        assert_eq!(o.cleanup_duration(), 260.0);
        let big = IbenchOptions {
            clients: 10,
            rows: 1_000_000_000,
            ..Default::default()
        };
        assert_eq!(big.cleanup_duration(), 1200.0);
    }
}
