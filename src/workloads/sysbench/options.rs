//! sysbench 1.0.20's OLTP options (docs/sysbench-compat.md#options), with its names and defaults, except
//! `--rand-type`, whose default is `uniform` here.

use crate::error::usage;
use crate::workloads::random::Distribution;
use anyhow::Result;
use clap::{ArgAction, ValueEnum};
use serde::{Deserialize, Serialize};

/// The distribution behind ids and k values (`--rand-type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RandType {
    Uniform,
    Gaussian,
    Special,
    Pareto,
    Zipfian,
}

/// Server-side prepared statements (`auto`) or the text protocol (`disable`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PsMode {
    Auto,
    Disable,
}

/// sysbench booleans: on|off, true|false, 1|0 (also yes|no); a bare `--flag` means on.
pub fn parse_switch(s: &str) -> std::result::Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Ok(true),
        "off" | "false" | "0" | "no" => Ok(false),
        _ => Err(format!(
            "'{s}' is not a switch: use on|off, true|false or 1|0"
        )),
    }
}

#[derive(clap::Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OltpOptions {
    /// Number of tables.
    #[arg(long, default_value_t = 1, help_heading = "OLTP workload")]
    pub tables: u32,
    /// Number of rows per table.
    #[arg(
        long,
        alias = "table_size",
        default_value_t = 10000,
        help_heading = "OLTP workload"
    )]
    pub table_size: u32,
    /// Range size for range SELECT queries.
    #[arg(
        long,
        alias = "range_size",
        default_value_t = 100,
        help_heading = "OLTP workload"
    )]
    pub range_size: u32,
    /// Number of point SELECT queries per transaction (always 1 in oltp_point_select).
    #[arg(
        long,
        alias = "point_selects",
        default_value_t = 10,
        help_heading = "OLTP workload"
    )]
    pub point_selects: u32,
    /// Number of simple range SELECT queries per transaction.
    #[arg(
        long,
        alias = "simple_ranges",
        default_value_t = 1,
        help_heading = "OLTP workload"
    )]
    pub simple_ranges: u32,
    /// Number of SELECT SUM() queries per transaction.
    #[arg(
        long,
        alias = "sum_ranges",
        default_value_t = 1,
        help_heading = "OLTP workload"
    )]
    pub sum_ranges: u32,
    /// Number of SELECT ORDER BY queries per transaction.
    #[arg(
        long,
        alias = "order_ranges",
        default_value_t = 1,
        help_heading = "OLTP workload"
    )]
    pub order_ranges: u32,
    /// Number of SELECT DISTINCT queries per transaction.
    #[arg(
        long,
        alias = "distinct_ranges",
        default_value_t = 1,
        help_heading = "OLTP workload"
    )]
    pub distinct_ranges: u32,
    /// Enable/disable all range SELECT queries.
    #[arg(long, alias = "range_selects", value_name = "on|off", default_value = "on",
          value_parser = parse_switch, action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_missing_value = "on", help_heading = "OLTP workload")]
    pub range_selects: bool,
    /// Number of UPDATE index queries per transaction.
    #[arg(
        long,
        alias = "index_updates",
        default_value_t = 1,
        help_heading = "OLTP workload"
    )]
    pub index_updates: u32,
    /// Number of UPDATE non-index queries per transaction.
    #[arg(
        long,
        alias = "non_index_updates",
        default_value_t = 1,
        help_heading = "OLTP workload"
    )]
    pub non_index_updates: u32,
    /// Number of DELETE/INSERT combinations per transaction.
    #[arg(
        long,
        alias = "delete_inserts",
        default_value_t = 1,
        help_heading = "OLTP workload"
    )]
    pub delete_inserts: u32,
    /// Don't start explicit transactions; run every query in autocommit mode.
    #[arg(long, alias = "skip_trx", value_name = "on|off", default_value = "off",
          value_parser = parse_switch, action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_missing_value = "on", help_heading = "OLTP workload")]
    pub skip_trx: bool,
    /// Use an AUTO_INCREMENT primary key; off: the client generates ids.
    #[arg(long, alias = "auto_inc", value_name = "on|off", default_value = "on",
          value_parser = parse_switch, action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_missing_value = "on", help_heading = "OLTP workload")]
    pub auto_inc: bool,
    /// Use a secondary index (KEY xid) in place of the PRIMARY KEY.
    #[arg(long, value_name = "on|off", default_value = "off",
          value_parser = parse_switch, action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_missing_value = "on", help_heading = "OLTP workload")]
    pub secondary: bool,
    /// Create the secondary index on k after the load.
    #[arg(long, alias = "create_secondary", value_name = "on|off", default_value = "on",
          value_parser = parse_switch, action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_missing_value = "on", help_heading = "OLTP workload")]
    pub create_secondary: bool,
    /// Storage engine of the tables (MySQL/MariaDB).
    #[arg(
        long,
        alias = "mysql_storage_engine",
        default_value = "innodb",
        help_heading = "OLTP workload"
    )]
    pub mysql_storage_engine: String,
    /// Number of random points in the IN() clause (select_random_points).
    #[arg(
        long,
        alias = "random_points",
        default_value_t = 10,
        help_heading = "OLTP workload"
    )]
    pub random_points: u32,
    /// Number of random BETWEEN ranges per SELECT (select_random_ranges).
    #[arg(
        long,
        alias = "number_of_ranges",
        default_value_t = 10,
        help_heading = "OLTP workload"
    )]
    pub number_of_ranges: u32,
    /// Size of BETWEEN ranges (select_random_ranges).
    #[arg(long, default_value_t = 5, help_heading = "OLTP workload")]
    pub delta: u32,
    /// Distribution of ids and k values. NOTE: sysbench 1.0.20 defaults to `special` (75% of
    /// draws hit 0.77% of the ids); pass --rand-type=special to reproduce sysbench's defaults.
    #[arg(long, alias = "rand_type", value_enum, default_value_t = RandType::Uniform,
          help_heading = "Random numbers")]
    pub rand_type: RandType,
    /// Number of iterations of the gaussian and special distributions.
    #[arg(
        long,
        alias = "rand_spec_iter",
        default_value_t = 12,
        help_heading = "Random numbers"
    )]
    pub rand_spec_iter: u32,
    /// Percentage of the values treated as 'special' (special distribution).
    #[arg(
        long,
        alias = "rand_spec_pct",
        default_value_t = 1,
        help_heading = "Random numbers"
    )]
    pub rand_spec_pct: u32,
    /// Percentage of 'special' values to use (special distribution).
    #[arg(
        long,
        alias = "rand_spec_res",
        default_value_t = 75,
        help_heading = "Random numbers"
    )]
    pub rand_spec_res: u32,
    /// Parameter h of the pareto distribution.
    #[arg(
        long,
        alias = "rand_pareto_h",
        default_value_t = 0.2,
        help_heading = "Random numbers"
    )]
    pub rand_pareto_h: f64,
    /// Exponent (theta) of the zipfian distribution.
    #[arg(
        long,
        alias = "rand_zipfian_exp",
        default_value_t = 0.8,
        help_heading = "Random numbers"
    )]
    pub rand_zipfian_exp: f64,
    /// Prepared statements: auto = server-side prepared statements (sysbench's default),
    /// disable = text protocol with the values in the SQL text.
    #[arg(long, alias = "db_ps_mode", value_enum, default_value_t = PsMode::Auto,
          help_heading = "OLTP workload")]
    pub db_ps_mode: PsMode,
}

impl Default for OltpOptions {
    fn default() -> Self {
        OltpOptions {
            tables: 1,
            table_size: 10000,
            range_size: 100,
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            range_selects: true,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            skip_trx: false,
            auto_inc: true,
            secondary: false,
            create_secondary: true,
            mysql_storage_engine: "innodb".into(),
            random_points: 10,
            number_of_ranges: 10,
            delta: 5,
            rand_type: RandType::Uniform,
            rand_spec_iter: 12,
            rand_spec_pct: 1,
            rand_spec_res: 75,
            rand_pareto_h: 0.2,
            rand_zipfian_exp: 0.8,
            db_ps_mode: PsMode::Auto,
        }
    }
}

impl OltpOptions {
    /// Reject values that would make a workload misbehave, as usage errors (exit code 2).
    pub fn validate(&self) -> Result<()> {
        if self.tables == 0 {
            return Err(usage("--tables must be at least 1"));
        }
        // ids are signed 32-bit INTEGERs; keep the upper end of a range representable.
        let max_rows = i32::MAX as u64;
        if self.table_size == 0 || u64::from(self.table_size) > max_rows {
            return Err(usage(format!(
                "--table-size must be between 1 and {max_rows}, got {}",
                self.table_size
            )));
        }
        if self.rand_spec_iter == 0 {
            return Err(usage("--rand-spec-iter must be at least 1"));
        }
        if self.rand_spec_pct > 100 || self.rand_spec_res > 100 {
            return Err(usage(
                "--rand-spec-pct and --rand-spec-res are percentages (0..100)",
            ));
        }
        if !(self.rand_pareto_h > 0.0 && self.rand_pareto_h < 1.0) {
            return Err(usage(format!(
                "--rand-pareto-h must be strictly between 0 and 1, got {}",
                self.rand_pareto_h
            )));
        }
        if !(self.rand_zipfian_exp.is_finite() && self.rand_zipfian_exp >= 0.0) {
            return Err(usage(format!(
                "--rand-zipfian-exp must be >= 0, got {}",
                self.rand_zipfian_exp
            )));
        }
        let engine = &self.mysql_storage_engine;
        if engine.is_empty()
            || !engine
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(usage(format!(
                "--mysql-storage-engine must be an engine name such as innodb, got '{engine}'"
            )));
        }
        Ok(())
    }

    /// The `default(a, b)` distribution these options select.
    pub fn distribution(&self) -> Distribution {
        match self.rand_type {
            RandType::Uniform => Distribution::Uniform,
            RandType::Gaussian => Distribution::Gaussian {
                iter: self.rand_spec_iter,
            },
            RandType::Special => Distribution::Special {
                iter: self.rand_spec_iter,
                pct: self.rand_spec_pct,
                res: self.rand_spec_res,
            },
            RandType::Pareto => Distribution::Pareto {
                h: self.rand_pareto_h,
            },
            RandType::Zipfian => Distribution::Zipfian {
                exp: self.rand_zipfian_exp,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        opts: OltpOptions,
    }

    fn parse(args: &[&str]) -> std::result::Result<OltpOptions, clap::Error> {
        Cli::try_parse_from(std::iter::once("t").chain(args.iter().copied())).map(|c| c.opts)
    }

    #[test]
    fn defaults_are_sysbench_defaults_except_rand_type() {
        let o = parse(&[]).unwrap();
        assert_eq!(o, OltpOptions::default());
        assert_eq!(o.rand_type, RandType::Uniform);
        assert!(o.range_selects && o.auto_inc && o.create_secondary);
        assert!(!o.skip_trx && !o.secondary);
        o.validate().unwrap();
    }

    #[test]
    fn switches_accept_sysbench_spellings() {
        for (v, want) in [
            ("on", true),
            ("off", false),
            ("true", true),
            ("false", false),
            ("1", true),
            ("0", false),
        ] {
            let o = parse(&[&format!("--skip-trx={v}")]).unwrap();
            assert_eq!(o.skip_trx, want, "{v}");
        }
        assert!(parse(&["--skip-trx"]).unwrap().skip_trx);
        assert!(!parse(&["--range_selects=off"]).unwrap().range_selects);
        assert!(parse(&["--skip-trx=maybe"]).is_err());
    }

    #[test]
    fn underscore_names_and_values() {
        let o = parse(&[
            "--table_size=500",
            "--tables",
            "3",
            "--rand-type=special",
            "--db-ps-mode=disable",
        ])
        .unwrap();
        assert_eq!((o.table_size, o.tables), (500, 3));
        assert_eq!(o.rand_type, RandType::Special);
        assert_eq!(o.db_ps_mode, PsMode::Disable);
        assert!(parse(&["--rand-type=triangular"]).is_err());
        assert!(parse(&["--tables=-1"]).is_err());
    }

    #[test]
    fn help_says_sysbench_defaults_to_special() {
        use clap::CommandFactory;
        let help = Cli::command().render_long_help().to_string();
        assert!(
            help.contains("sysbench 1.0.20 defaults to `special`"),
            "{help}"
        );
        assert!(help.contains("--rand-type=special"));
    }

    #[test]
    fn bad_values_are_usage_errors() {
        let bad = [
            OltpOptions {
                tables: 0,
                ..Default::default()
            },
            OltpOptions {
                table_size: 0,
                ..Default::default()
            },
            OltpOptions {
                rand_pareto_h: 1.0,
                ..Default::default()
            },
            OltpOptions {
                rand_zipfian_exp: -1.0,
                ..Default::default()
            },
            OltpOptions {
                rand_spec_iter: 0,
                ..Default::default()
            },
            OltpOptions {
                mysql_storage_engine: "innodb; DROP".into(),
                ..Default::default()
            },
        ];
        for o in bad {
            let e = o.validate().unwrap_err();
            assert!(crate::error::is_usage(&e), "{e}");
        }
    }

    #[test]
    fn round_trips_through_json() {
        let o = OltpOptions {
            rand_type: RandType::Pareto,
            ..Default::default()
        };
        let json = serde_json::to_string(&o).unwrap();
        assert!(json.contains("\"rand_type\":\"pareto\""), "{json}");
        let back: OltpOptions = serde_json::from_str(&json).unwrap();
        assert_eq!(back, o);
    }
}
