//! `psbench history`: the results history's series, one series' points and changes, its
//! export, `import`, `check` for CI, `accept`, and the change points of a series from a file
//! (docs/history.md).

use crate::history::{analysis::Options, commands};
use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryArgs {
    #[command(subcommand)]
    cmd: Option<HistoryCmd>,
    /// A series' number (from the list): its points in order and its change points
    series: Option<i64>,
    /// With SERIES: its points as CSV
    #[arg(long)]
    csv: bool,
    /// Write the whole history as one self-contained page (charts, changes, verdicts) to FILE
    #[arg(long, value_name = "FILE", conflicts_with_all = ["series", "csv"])]
    html: Option<PathBuf>,
    /// With SERIES: write it as Apache Otava reads it (a CSV and otava.yaml) into DIR
    #[arg(long, value_name = "DIR", requires = "series", conflicts_with = "csv")]
    otava: Option<PathBuf>,
    #[command(flatten)]
    changes: ChangeArgs,
}

#[derive(Subcommand, Debug)]
enum HistoryCmd {
    /// Add results documents written before (results directories or results.json files)
    Import {
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// Each series' newest point against its level since the last change: exit 1 on a regression
    Check {
        /// Smallest regression called, in percent [default: 1 for instruction counts, 5 otherwise]
        #[arg(long, value_name = "PCT")]
        threshold: Option<f64>,
        /// Also check each earlier point against the points before it, as a check run after
        /// every point would have (the exit code still follows the newest points)
        #[arg(long)]
        replay: bool,
        #[command(flatten)]
        changes: ChangeArgs,
    },
    /// The change points of any series: a CSV file with a value column (and low, high for
    /// counts), one row per point in order; one CSV line per change
    Changes {
        file: PathBuf,
        /// The series is instruction counts: the rule for counts instead of E-Divisive means
        #[arg(long)]
        counts: bool,
        #[command(flatten)]
        changes: ChangeArgs,
    },
    /// Accept a regression: the point starts the level later points are checked against
    Accept {
        series: i64,
        point: i64,
        /// Why it is accepted (recorded)
        #[arg(long)]
        why: String,
        /// Who accepts it [default: $USER]
        #[arg(long)]
        by: Option<String>,
    },
}

/// How change points are looked for.
#[derive(Args, Debug, Clone, Copy)]
struct ChangeArgs {
    /// Largest p-value of a change in throughput and CPU series
    #[arg(long, default_value_t = 0.001)]
    max_p: f64,
    /// Smallest change in percent [default: 1 for instruction counts, 0 otherwise]
    #[arg(long, value_name = "PCT")]
    min_magnitude: Option<f64>,
    /// Fewest points on each side of a change in throughput and CPU series
    #[arg(long, default_value_t = 5)]
    min_segment: usize,
    /// Points searched at once in throughput and CPU series
    #[arg(long, default_value_t = 50)]
    window: usize,
}

impl ChangeArgs {
    fn options(self, threshold: Option<f64>) -> Options {
        let mut o = Options::default();
        o.noisy.max_p = self.max_p;
        o.noisy.min_segment = self.min_segment;
        o.noisy.window = self.window;
        if let Some(m) = self.min_magnitude {
            o.noisy.min_magnitude = m / 100.0;
            o.precise.min_magnitude = m / 100.0;
        }
        o.threshold = threshold.map(|t| t / 100.0);
        o
    }
}

pub fn command(a: HistoryArgs, history: &Path) -> Result<()> {
    match a.cmd {
        None if a.otava.is_some() => {
            let series = a.series.expect("clap requires SERIES with --otava");
            print!(
                "{}",
                commands::otava(history, series, a.otava.as_ref().unwrap())?
            );
        }
        None if a.html.is_some() => {
            let file = a.html.unwrap();
            let page = crate::history::page::render(history, &a.changes.options(None))?;
            std::fs::write(&file, page).map_err(|e| {
                crate::error::usage(format!("cannot write {}: {e}", file.display()))
            })?;
            println!("history page: {}", file.display());
        }
        None => print!(
            "{}",
            commands::show(history, a.series, a.csv, &a.changes.options(None))?
        ),
        Some(HistoryCmd::Import { dirs }) => {
            let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
            print!("{}", commands::import(history, &dirs)?);
        }
        Some(HistoryCmd::Check {
            threshold,
            replay,
            changes,
        }) => {
            let (text, regressions) =
                commands::check(history, &changes.options(threshold), replay)?;
            print!("{text}");
            if regressions > 0 {
                anyhow::bail!(
                    "{regressions} regression{} (above; `psbench history accept SERIES POINT --why …` accepts one)",
                    if regressions == 1 { "" } else { "s" }
                );
            }
        }
        Some(HistoryCmd::Changes {
            file,
            counts,
            changes,
        }) => print!(
            "{}",
            crate::history::file_series::changes_of_file(&file, counts, &changes.options(None))?
        ),
        Some(HistoryCmd::Accept {
            series,
            point,
            why,
            by,
        }) => {
            let who = by
                .or_else(|| std::env::var("USER").ok())
                .unwrap_or_else(|| "unknown".into());
            println!("{}", commands::accept(history, series, point, &who, &why)?);
        }
    }
    Ok(())
}
