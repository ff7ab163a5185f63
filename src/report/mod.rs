//! Stage 5: reports. Tables computed once from a results document (or two, compared), rendered
//! per format: Markdown, one self-contained HTML page with SVG charts, CSV, Go benchmark text.

pub mod background;
pub mod bmf;
pub mod caveat_marks;
pub mod cells;
pub mod charts;
pub mod class_table;
pub mod compare;
pub mod cost_chart;
pub mod cost_table;
pub mod csv;
pub mod files;
pub mod findings;
pub mod frames_that_grew;
pub mod gate;
pub mod glance;
pub mod gobench;
pub mod grid;
pub mod host;
pub mod hosts;
pub mod html;
pub mod io_regime;
pub mod markdown;
pub mod provenance;
pub mod publish;
pub mod published;
mod question;
pub mod relative_cpu;
pub mod rounds_table;
pub mod saturation;
pub mod sections;
pub mod slice_table;
pub mod subject;
pub mod summary_json;
pub mod sweep_chart;
pub mod sweep_table;
pub mod tables;
pub mod ticks;
pub mod variant_lines;

pub use subject::Subject;

use anyhow::Result;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Markdown tables (summary.md)
    Md,
    /// One self-contained HTML page with charts (report.html)
    Html,
    /// Every table as CSV, each after a "# NAME.csv" line (csv/NAME.csv)
    Csv,
    /// Go benchmark format for benchstat (bench.txt)
    Gobench,
}

/// The report in one format, as text.
pub fn render(s: &Subject, format: Format) -> Result<String> {
    Ok(match format {
        Format::Md => markdown::summary(s),
        Format::Html => html::render(s)?,
        Format::Gobench => gobench::render(s),
        Format::Csv => files::csv_tables(s)
            .iter()
            .map(|(name, text)| format!("# {name}\n{text}"))
            .collect::<Vec<_>>()
            .join("\n"),
    })
}
