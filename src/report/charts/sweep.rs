//! The sweep section's chart: per sweep and step, each release's instructions per unit of
//! work in release order, a point with the range of its repeats as a bar, and a dashed line
//! where the level changed. Plain SVG, as the cost chart.

use crate::report::grid::escape;
use crate::report::subject::Subject;
use crate::results::sweep::{sweeps, SweepStep};
use std::fmt::Write;

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 28.0;
/// Room under the plot for the releases' names, written slanted.
const BOTTOM: f64 = 90.0;

/// (title, points, SVG) per sweep and step.
pub fn charts(s: &Subject) -> Vec<(String, usize, String)> {
    sweeps(&s.results)
        .iter()
        .map(|sw| {
            (
                format!("{} {}", sw.sweep, sw.step),
                sw.points.len(),
                svg(sw),
            )
        })
        .collect()
}

fn svg(sw: &SweepStep) -> String {
    let ranges = sw.ranges();
    let lo = ranges.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    let hi = ranges.iter().map(|r| r.2).fold(f64::NEG_INFINITY, f64::max);
    // A little room above and below; a flat series still gets a visible scale.
    let pad = ((hi - lo) * 0.1).max(hi.abs() * 0.005);
    let (lo, hi) = (lo - pad, hi + pad);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let n = ranges.len().max(1) as f64;
    let x = |i: usize| LEFT + plot_w * (i as f64 + 0.5) / n;
    let y = |v: f64| TOP + plot_h * (hi - v) / (hi - lo);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"4\" y=\"16\" font-weight=\"bold\">{} {}: instructions per {} by release</text>\n",
        escape(&sw.sweep),
        escape(&sw.step),
        escape(sw.unit)
    );
    for v in [lo + pad, hi - pad] {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{v:.0}</text><line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
            LEFT - 6.0,
            y(v) + 4.0,
            WIDTH - RIGHT,
            y(v),
            y(v)
        );
    }
    for c in &crate::stats::changes::of_counts(&ranges) {
        let between = (x(c.index - 1) + x(c.index)) / 2.0;
        let _ = writeln!(
            s,
            "<line class=\"change\" x1=\"{between:.1}\" x2=\"{between:.1}\" y1=\"{TOP}\" y2=\"{:.1}\" stroke=\"#e15759\" stroke-dasharray=\"4 3\"><title>{:+.1}%</title></line>",
            TOP + plot_h,
            c.magnitude * 100.0
        );
    }
    let mut path = String::new();
    for (i, ((name, _), (v, l, h))) in sw.points.iter().zip(&ranges).enumerate() {
        let _ = write!(
            path,
            "{}{:.1},{:.1}",
            if i == 0 { "M" } else { " L" },
            x(i),
            y(*v)
        );
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1:.1}\" y2=\"{2:.1}\" stroke=\"#4e79a7\" stroke-width=\"3\"/><circle class=\"point\" cx=\"{0:.1}\" cy=\"{3:.1}\" r=\"3.5\" fill=\"#4e79a7\"><title>{4}: {5:.0}</title></circle><text transform=\"translate({0:.1},{6:.1}) rotate(40)\">{4}</text>",
            x(i),
            y(*h),
            y(*l),
            y(*v),
            escape(name),
            v,
            TOP + plot_h + 14.0
        );
    }
    let _ = writeln!(
        s,
        "<path d=\"{path}\" fill=\"none\" stroke=\"#4e79a7\" stroke-opacity=\"0.5\"/>\n</svg>"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::StudyResults;

    #[test]
    fn a_chart_per_step_with_each_release_and_the_change() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study");
        let mut res = StudyResults::load(&dir).unwrap();
        // The checked-in study's two variants as two releases of one sweep.
        for v in &mut res.study.variants {
            v.sweep = Some("ps".into());
        }
        let charts = charts(&Subject::study(res, "x"));
        assert_eq!(charts.len(), 2);
        assert_eq!(charts[0].2.matches("class=\"point\"").count(), 2);
        assert_eq!(charts[0].2.matches("class=\"change\"").count(), 1);
    }
}
