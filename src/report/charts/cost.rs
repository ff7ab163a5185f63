//! The cost section's chart: per step, a horizontal bar per variant of its instructions
//! relative to the base, sorted like the table, with 1.0 marked. Plain SVG rectangles and
//! text: a bar chart needs no axes library, and the page stays self-contained.

use crate::report::grid::{escape, ratio};
use crate::report::subject::Subject;
use crate::report::tables::cost::{self, CostRow};
use std::fmt::Write;

const WIDTH: f64 = 640.0;
const LABEL: f64 = 170.0;
const VALUE: f64 = 70.0;
const BAR: f64 = 18.0;
const GAP: f64 = 6.0;
const TOP: f64 = 28.0;

/// (step, bars, SVG) for every step with at least one ratio to the base.
pub fn charts(s: &Subject) -> Vec<(String, usize, String)> {
    let rows = cost::rows(s);
    let mut steps: Vec<&str> = Vec::new();
    for r in &rows {
        if !steps.contains(&r.step.as_str()) {
            steps.push(&r.step);
        }
    }
    steps
        .into_iter()
        .filter_map(|step| {
            let bars: Vec<&CostRow> = rows
                .iter()
                .filter(|r| r.step == step && r.ratio.is_some())
                .collect();
            (!bars.is_empty()).then(|| (step.to_string(), bars.len(), svg(step, &bars)))
        })
        .collect()
}

fn svg(step: &str, bars: &[&CostRow]) -> String {
    let ratios: Vec<f64> = bars.iter().map(|r| r.ratio.unwrap()).collect();
    // The scale starts at 0 so bar lengths compare honestly, and reaches past the largest.
    let top = ratios.iter().copied().fold(1.0, f64::max) * 1.05;
    let plot = WIDTH - LABEL - VALUE;
    let x = |v: f64| LABEL + plot * (v / top);
    let height = TOP + bars.len() as f64 * (BAR + GAP) + 8.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"4\" y=\"16\" font-weight=\"bold\">{}: instructions per {} relative to the base</text>\n",
        escape(step),
        escape(&bars[0].unit)
    );
    for (i, r) in bars.iter().enumerate() {
        let q = r.ratio.unwrap();
        let y = TOP + i as f64 * (BAR + GAP);
        // Orange above the base, blue at or below it.
        let fill = if q > 1.0 + crate::results::COST_TOLERANCE {
            "#f28e2b"
        } else {
            "#4e79a7"
        };
        let mark = if r.ratio_unstable { " ⚠" } else { "" };
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><rect class=\"bar\" x=\"{LABEL}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{BAR}\" fill=\"{fill}\"><title>{}: {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\">{}{mark}</text>",
            LABEL - 6.0,
            y + BAR - 5.0,
            escape(&r.variant),
            x(q) - LABEL,
            escape(&r.variant),
            ratio(q),
            x(q) + 4.0,
            y + BAR - 5.0,
            ratio(q)
        );
    }
    let one = x(1.0);
    let _ = writeln!(
        s,
        "<line x1=\"{one:.1}\" x2=\"{one:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#222\" stroke-dasharray=\"4 3\"/>\n</svg>",
        TOP - 4.0,
        height - 4.0
    );
    s
}
