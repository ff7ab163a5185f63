//! SVG charts for the HTML report, drawn with plotters' SVG backend. Text is left to the
//! browser (SVG <text> with a generic font family), so no font is loaded or embedded.
//!
//! Series are drawn as polylines in the palette's colours and legends as filled rectangles, so
//! a reader (or a test) can count a chart's series by its coloured polylines. The legend has a
//! column of its own right of the plotting area, so that it covers no line, band or reference.

pub mod cost;
pub mod sweep;
pub mod ticks;

use crate::report::cells::{steps, threads_of, throughput_variants};
use crate::report::subject::Subject;
use crate::report::tables::measurements::{compare_tps, median_of, values};
use crate::stats::Summary;
use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use ticks::{ticked, Tick};

pub const WIDTH: u32 = 640;
pub const HEIGHT: u32 = 360;

/// Tableau 10: distinguishable, and readable for the common colour blindnesses.
pub const PALETTE: [(u8, u8, u8); 10] = [
    (0x4e, 0x79, 0xa7),
    (0xf2, 0x8e, 0x2b),
    (0xe1, 0x57, 0x59),
    (0x76, 0xb7, 0xb2),
    (0x59, 0xa1, 0x4f),
    (0xed, 0xc9, 0x48),
    (0xb0, 0x7a, 0xa1),
    (0xff, 0x9d, 0xa7),
    (0x9c, 0x75, 0x5f),
    (0xba, 0xb0, 0xac),
];

fn colour(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// A drawn chart: what it shows and how many series it has.
pub struct Chart {
    pub kind: &'static str,
    pub title: String,
    pub caption: String,
    pub series: usize,
    pub svg: String,
}

fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("drawing a chart: {e}")
}

/// A line with its interval band and points; `band` may be empty.
struct Line {
    name: String,
    colour: RGBColor,
    points: Vec<(f64, f64)>,
    band: Vec<(f64, f64, f64)>,
    /// Thin lines without points, for many overlaid rounds.
    thin: bool,
    /// Only the first line of a group is named in the legend.
    in_legend: bool,
}

struct Axes<'a> {
    x_desc: &'a str,
    y_desc: &'a str,
    /// Labels of categorical x positions 0, 1, …; none for a numeric x axis.
    x_categories: Vec<String>,
    x: (f64, f64),
    y: (f64, f64),
    y_log: bool,
    /// Ratios: fixed two decimals on the y axis.
    y_ratio: bool,
    /// Horizontal reference lines (y, emphasised).
    references: Vec<(f64, bool)>,
}

/// The ticks of the x axis: one per category, or round seconds.
fn x_ticks(axes: &Axes) -> Vec<Tick> {
    if axes.x_categories.is_empty() {
        ticks::linear(axes.x.0, axes.x.1, ticks::MIN_TICKS)
    } else {
        axes.x_categories
            .iter()
            .enumerate()
            .map(|(i, c)| Tick {
                value: i as f64,
                label: c.clone(),
            })
            .collect()
    }
}

/// The ticks of the y axis: at least three labels, log or linear, fixed decimals for ratios.
fn y_ticks(axes: &Axes) -> Vec<Tick> {
    if axes.y_log {
        return ticks::log(axes.y.0, axes.y.1);
    }
    // A fourth label where the range allows: values are read off this axis.
    let mut t = ticks::linear(axes.y.0, axes.y.1, 4);
    if axes.y_ratio {
        // Ratios read as ratios: 1.00, not 1.
        for tick in &mut t {
            let decimals = tick.label.split_once('.').map_or(0, |(_, d)| d.len());
            tick.label = format!("{:.*}", decimals.max(2), tick.value);
        }
    }
    t
}

/// The legend column's width for these names: a swatch, and about 7 px a character.
fn legend_width(names: &[(&str, RGBColor)]) -> u32 {
    let widest = names.iter().map(|(n, _)| n.chars().count()).max();
    widest.map_or(0, |w| (w as u32 * 7 + 40).clamp(90, 320))
}

/// The legend, a swatch and a name a row, in its own column.
fn legend(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    names: &[(&str, RGBColor)],
) -> Result<()> {
    for (i, (name, c)) in names.iter().enumerate() {
        let y = 44 + i as i32 * 20;
        area.draw(&Rectangle::new([(6, y - 5), (22, y + 5)], c.filled()))
            .map_err(err)?;
        area.draw(&Text::new(
            name.to_string(),
            (28, y - 7),
            ("sans-serif", 13).into_font().color(&BLACK),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// Draw lines on axes, the legend beside them; returns the SVG text.
fn draw(title: &str, axes: &Axes, lines: &[Line]) -> Result<String> {
    let (xt, yt) = (x_ticks(axes), y_ticks(axes));
    let names: Vec<(&str, RGBColor)> = lines
        .iter()
        .filter(|l| l.in_legend)
        .map(|l| (l.name.as_str(), l.colour))
        .collect();
    let legend_w = legend_width(&names);
    let mut svg = String::new();
    {
        let whole =
            SVGBackend::with_string(&mut svg, (WIDTH + legend_w, HEIGHT)).into_drawing_area();
        whole.fill(&WHITE).map_err(err)?;
        let (root, beside) = whole.split_horizontally(WIDTH);
        legend(&beside, &names)?;
        let x_range = ticked(axes.x.0..axes.x.1, &xt);
        if axes.y_log {
            let y = ticked((axes.y.0..axes.y.1).log_scale(), &yt);
            plot(&root, title, axes, x_range, y, (&xt, &yt), lines)?;
        } else {
            let y = ticked(axes.y.0..axes.y.1, &yt);
            plot(&root, title, axes, x_range, y, (&xt, &yt), lines)?;
        }
        whole.present().map_err(err)?;
    }
    Ok(svg)
}

fn plot<X, Y>(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    title: &str,
    axes: &Axes,
    x_range: X,
    y_range: Y,
    (xt, yt): (&[Tick], &[Tick]),
    lines: &[Line],
) -> Result<()>
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    // Room for the longest tick label beside the axis description, so neither covers the
    // other.
    let widest = yt
        .iter()
        .map(|t| t.label.chars().count())
        .max()
        .unwrap_or(1);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(38)
        .y_label_area_size((widest as u32 * 8 + 28).max(50))
        .build_cartesian_2d(x_range, y_range)
        .map_err(err)?;
    let x_fmt = |x: &f64| ticks::label_at(xt, *x);
    let y_fmt = |y: &f64| ticks::label_at(yt, *y);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(axes.x_desc)
        .y_desc(axes.y_desc)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style(("sans-serif", 13))
        // Major grid lines only: the minor ones make a busy chart.
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4));
    mesh.draw().map_err(err)?;
    for (y, strong) in &axes.references {
        let style = if *strong {
            RGBColor(0x55, 0x55, 0x55).stroke_width(1)
        } else {
            RGBColor(0xaa, 0xaa, 0xaa).stroke_width(1)
        };
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(axes.x.0, *y), (axes.x.1, *y)],
                style,
            )))
            .map_err(err)?;
    }
    for l in lines {
        if l.band.len() >= 2 {
            let mut poly: Vec<(f64, f64)> = l.band.iter().map(|(x, lo, _)| (*x, *lo)).collect();
            poly.extend(l.band.iter().rev().map(|(x, _, hi)| (*x, *hi)));
            chart
                .draw_series(std::iter::once(Polygon::new(poly, l.colour.mix(0.18))))
                .map_err(err)?;
        } else {
            // A single point: its interval as a whisker.
            for (x, lo, hi) in &l.band {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(*x, *lo), (*x, *hi)],
                        l.colour.mix(0.5).stroke_width(3),
                    )))
                    .map_err(err)?;
            }
        }
    }
    for l in lines {
        let width = if l.thin { 1 } else { 2 };
        let c = l.colour;
        chart
            .draw_series(LineSeries::new(l.points.clone(), c.stroke_width(width)))
            .map_err(err)?;
        // A line needs two points; a lone point is drawn as a dot.
        if !l.thin || l.points.len() == 1 {
            chart
                .draw_series(l.points.iter().map(|p| Circle::new(*p, 3, c.filled())))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// y range from 0 (or just under the data) to a little above the largest value.
fn y_span(values: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    // Room above the highest point, also when all points are equal.
    let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.06).max(1e-9);
    let lo = if from_zero { 0.0_f64.min(lo) } else { lo - pad };
    (lo, hi + pad)
}

fn category_x(n: usize) -> (f64, f64) {
    (-0.3, (n.max(1) - 1) as f64 + 0.3)
}

/// Colour of each variant: its position among all variants of the subject.
fn variant_colour(s: &Subject, v: &str) -> RGBColor {
    let all = crate::report::subject::variants(&s.results);
    colour(all.iter().position(|x| x == v).unwrap_or(0))
}

/// Throughput vs threads per variant, medians with the min–max band over rounds.
pub fn throughput_vs_threads(s: &Subject, step: &str) -> Result<Chart> {
    let res = &s.results;
    let threads = threads_of(res, step);
    let mut lines = Vec::new();
    for v in throughput_variants(res) {
        let mut points = Vec::new();
        let mut band = Vec::new();
        for (i, t) in threads.iter().enumerate() {
            if let Some(x) = Summary::of(&values(res, &v, step, *t, |c| c.tps)) {
                points.push((i as f64, x.median));
                band.push((i as f64, x.min, x.max));
            }
        }
        if !points.is_empty() {
            lines.push(Line {
                name: v.clone(),
                colour: variant_colour(s, &v),
                points,
                band,
                thin: false,
                in_legend: true,
            });
        }
    }
    let y = y_span(lines.iter().flat_map(|l| l.band.iter().map(|b| b.2)), true);
    let axes = Axes {
        x_desc: "threads",
        y_desc: "transactions/s",
        x_categories: threads.iter().map(|t| t.to_string()).collect(),
        x: category_x(threads.len()),
        y,
        y_log: false,
        y_ratio: false,
        references: Vec::new(),
    };
    let title = format!("{step}: throughput vs threads");
    Ok(Chart {
        kind: "throughput",
        svg: draw(&title, &axes, &lines)?,
        series: lines.len(),
        title,
        caption: "Median over rounds; the band spans min–max of the rounds.".into(),
    })
}

/// Per pair, new / base throughput per thread count with the 95% interval as a band.
pub fn ratio_vs_threads(s: &Subject, step: &str) -> Result<Chart> {
    let res = &s.results;
    let threads = threads_of(res, step);
    let mut lines = Vec::new();
    for p in &s.pairs {
        let mut points = Vec::new();
        let mut band = Vec::new();
        for (i, t) in threads.iter().enumerate() {
            if let Some(c) = compare_tps(s, p, step, *t) {
                points.push((i as f64, c.ratio));
                if c.low.is_finite() && c.high.is_finite() {
                    band.push((i as f64, c.low, c.high));
                }
            }
        }
        if !points.is_empty() {
            lines.push(Line {
                name: p.label(),
                colour: variant_colour(s, &p.new),
                points,
                band,
                thin: false,
                in_legend: true,
            });
        }
    }
    let th = s.threshold();
    let y = y_span(
        lines
            .iter()
            .flat_map(|l| l.band.iter().flat_map(|b| [b.1, b.2]))
            .chain(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)))
            .chain([1.0 - th, 1.0 + th]),
        false,
    );
    let axes = Axes {
        x_desc: "threads",
        y_desc: "new / base (higher: faster)",
        x_categories: threads.iter().map(|t| t.to_string()).collect(),
        x: category_x(threads.len()),
        y,
        y_log: false,
        y_ratio: true,
        references: vec![(1.0, true), (1.0 - th, false), (1.0 + th, false)],
    };
    let title = format!("{step}: ratio vs threads");
    Ok(Chart {
        kind: "ratio",
        svg: draw(&title, &axes, &lines)?,
        series: lines.len(),
        title,
        caption: format!(
            "Variant throughput / base throughput (below 1: the variant is slower), with its 95% interval; grey lines at 1.0 and ±{:.0}%.",
            th * 100.0
        ),
    })
}

/// A per-second series of a cell: throughput, or the device's read or write MB/s.
pub struct Series {
    pub kind: &'static str,
    pub what: &'static str,
    pub unit: &'static str,
    pub of: fn(&crate::results::CellResult) -> Vec<f64>,
}

pub const THROUGHPUT: Series = Series {
    kind: "per-second",
    what: "throughput per second",
    unit: "transactions/s",
    of: |c| c.per_second_tps.clone(),
};
pub const DEVICE_READS: Series = Series {
    kind: "device-reads",
    what: "device reads per second",
    unit: "MB/s read",
    of: |c| c.per_second_device.iter().map(|d| d.read_mb_s).collect(),
};
pub const DEVICE_WRITES: Series = Series {
    kind: "device-writes",
    what: "device writes per second",
    unit: "MB/s written",
    of: |c| c.per_second_device.iter().map(|d| d.write_mb_s).collect(),
};

/// A per-second series of every round of each variant, overlaid over the whole measured
/// window, at one thread count.
pub fn per_second(s: &Subject, step: &str, threads: u32, series: &Series) -> Result<Chart> {
    let res = &s.results;
    let mut lines = Vec::new();
    for v in throughput_variants(res) {
        let mut first = true;
        for c in crate::report::cells::rounds(res, &v, step, threads).filter(|c| c.ok) {
            let values = (series.of)(c);
            if values.is_empty() {
                continue;
            }
            lines.push(Line {
                name: v.clone(),
                colour: variant_colour(s, &v),
                points: values
                    .iter()
                    .enumerate()
                    .map(|(i, t)| ((i + 1) as f64, *t))
                    .collect(),
                band: Vec::new(),
                thin: true,
                in_legend: first,
            });
            first = false;
        }
    }
    let seconds = lines.iter().map(|l| l.points.len()).max().unwrap_or(1);
    let y = y_span(
        lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)),
        true,
    );
    let axes = Axes {
        x_desc: "second of the measured window",
        y_desc: series.unit,
        x_categories: Vec::new(),
        x: (0.5, seconds as f64 + 0.5),
        y,
        y_log: false,
        y_ratio: false,
        references: Vec::new(),
    };
    let title = format!("{step}, {threads} threads: {}", series.what);
    Ok(Chart {
        kind: series.kind,
        svg: draw(&title, &axes, &lines)?,
        series: lines.len(),
        title,
        caption: "Every successful round, one line each, coloured by variant.".into(),
    })
}

/// Latency percentiles (medians over rounds) per variant at one thread count, log scale.
pub fn latency(s: &Subject, step: &str, threads: u32) -> Result<Chart> {
    let res = &s.results;
    let pcts = crate::report::tables::measurements::PERCENTILES;
    let mut lines = Vec::new();
    for v in throughput_variants(res) {
        let points: Vec<(f64, f64)> = pcts
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                median_of(res, &v, step, threads, |c| {
                    c.latency_ms.get(*p).copied().unwrap_or(f64::NAN)
                })
                .filter(|ms| ms.is_finite() && *ms > 0.0)
                .map(|ms| (i as f64, ms))
            })
            .collect();
        if !points.is_empty() {
            lines.push(Line {
                name: v.clone(),
                colour: variant_colour(s, &v),
                points,
                band: Vec::new(),
                thin: false,
                in_legend: true,
            });
        }
    }
    let all: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let y = if lo.is_finite() {
        (lo / 1.5, hi * 1.5)
    } else {
        (0.01, 1.0)
    };
    let axes = Axes {
        x_desc: "percentile",
        y_desc: "ms (log scale)",
        x_categories: pcts.iter().map(|p| p.to_string()).collect(),
        x: category_x(pcts.len()),
        y,
        y_log: true,
        y_ratio: false,
        references: Vec::new(),
    };
    let title = format!("{step}, {threads} threads: latency percentiles");
    Ok(Chart {
        kind: "latency",
        svg: draw(&title, &axes, &lines)?,
        series: lines.len(),
        title,
        caption: "Each percentile is the median over rounds of the rounds' percentiles.".into(),
    })
}

/// The charts of a step: throughput and ratio vs threads, and at the highest thread count the
/// per-second overlay and the latency percentiles.
pub fn for_step(s: &Subject, step: &str) -> Result<Vec<Chart>> {
    let res = &s.results;
    let Some(top) = threads_of(res, step).last().copied() else {
        return Ok(Vec::new());
    };
    let mut charts = vec![throughput_vs_threads(s, step)?];
    if s.pairs
        .iter()
        .any(|p| compare_tps(s, p, step, top).is_some())
    {
        charts.push(ratio_vs_threads(s, step)?);
    }
    // Per-second series, device traffic too (as the published study of MySQL 5.7 against 8.0
    // on IO-bound writes charts it) when the cells measured anything: a series that stayed at
    // zero (no device reads) is not drawn at all.
    for series in [&THROUGHPUT, &DEVICE_READS, &DEVICE_WRITES] {
        if measured(s, step, top, series) {
            charts.push(per_second(s, step, top, series)?);
        }
    }
    charts.push(latency(s, step, top)?);
    // A chart without a line says nothing.
    charts.retain(|c| c.series > 0);
    Ok(charts)
}

/// Whether a successful round at (step, threads) has a value of `series` other than zero.
fn measured(s: &Subject, step: &str, threads: u32, series: &Series) -> bool {
    throughput_variants(&s.results).iter().any(|v| {
        crate::report::cells::rounds(&s.results, v, step, threads)
            .filter(|c| c.ok)
            .any(|c| (series.of)(c).iter().any(|x| x.is_finite() && *x != 0.0))
    })
}

/// Every chart of the report, per step.
pub fn all(s: &Subject) -> Result<Vec<(String, Vec<Chart>)>> {
    steps(&s.results)
        .into_iter()
        .map(|step| for_step(s, &step).map(|c| (step, c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_pad_and_start_at_zero_when_asked() {
        assert_eq!(y_span([10.0, 20.0].into_iter(), true).0, 0.0);
        let (lo, hi) = y_span([0.9, 1.1].into_iter(), false);
        assert!(lo < 0.9 && hi > 1.1);
        assert_eq!(y_span(std::iter::empty(), true), (0.0, 1.0));
    }
}
