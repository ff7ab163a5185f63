//! The "frames that grew per transaction" section of a profiled study: per variant, step and
//! thread count, the frames whose sampled server CPU per transaction grew most against the
//! base (the profile stage computed them into the results document).

use crate::results::document::PROFILES_DIR;
use crate::results::{FramesThatGrew, StudyResults};

/// The section, or `None` when no cell was profiled.
pub fn section(res: &StudyResults) -> Option<String> {
    if !res.cells.iter().any(|c| c.ok && c.profile.is_some()) {
        return None;
    }
    let base = res.study.base_variant();
    let mut s = String::from("## Frames that grew per transaction\n\n");
    let Some(grew) = &res.frames_that_grew else {
        s += &format!(
            "This results document was written by a psbench that did not keep these tables: \
             see {PROFILES_DIR}/summary.md and the flame graphs beside it.\n"
        );
        return Some(s);
    };
    if grew.is_empty() {
        s += &format!("No variant has a profile to compare with the base ({base}).\n");
        return Some(s);
    }
    s += &format!(
        "Server CPU per transaction in µs: the CPU time of perf's cpu-clock samples in each frame, \
         divided by the transactions of the sampled window, against the base {base}. \
         self: the frame is running; total: the frame is on the stack. \
         Frames named [binary] have no symbol. Flame graphs: {PROFILES_DIR}/*.svg, differentials {PROFILES_DIR}/*.diff.svg.\n"
    );
    for g in grew {
        s += &comparison(g);
    }
    Some(s)
}

fn comparison(g: &FramesThatGrew) -> String {
    let (base, variant) = (&g.base, &g.variant);
    let (tb, tv) = (g.base_ns_per_txn, g.variant_ns_per_txn);
    let threads = format!(
        "{} thread{}",
        g.threads,
        if g.threads == 1 { "" } else { "s" }
    );
    let mut s = format!(
        "\n### {variant} against {base}: {}, {threads}\n\n\
         Sampled server CPU per transaction: {base} {:.1} µs ({} transactions), \
         {variant} {:.1} µs ({} transactions), {:+.1}%.\n\n",
        g.step,
        tb / 1000.0,
        g.base_transactions,
        tv / 1000.0,
        g.variant_transactions,
        if tb > 0.0 {
            (tv / tb - 1.0) * 100.0
        } else {
            0.0
        },
    );
    if g.frames.is_empty() {
        s += "No frame grew.\n";
        return s;
    }
    s += &format!(
        "| frame | self {base} | self {variant} | self Δ | total {base} | total {variant} | total Δ |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    );
    for f in &g.frames {
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            cell_text(&f.frame),
            us(f.self_base_ns),
            us(f.self_variant_ns),
            signed_us(f.self_variant_ns - f.self_base_ns),
            us(f.total_base_ns),
            us(f.total_variant_ns),
            signed_us(f.total_variant_ns - f.total_base_ns),
        );
    }
    s
}

fn us(ns: f64) -> String {
    format!("{:.2}", ns / 1000.0)
}

fn signed_us(ns: f64) -> String {
    format!("{:+.2}", ns / 1000.0)
}

/// Frame names may hold `|` (C++ operators) and `<…>` (templates): escape them for Markdown.
fn cell_text(frame: &str) -> String {
    format!("`{}`", frame.replace('|', "\\|").replace('`', "'"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::FrameGrowth;

    #[test]
    fn a_row_per_frame_in_microseconds() {
        let g = FramesThatGrew {
            variant: "on".into(),
            base: "off".into(),
            step: "point_select".into(),
            threads: 1,
            base_ns_per_txn: 1100.0,
            variant_ns_per_txn: 1550.0,
            base_transactions: 10,
            variant_transactions: 9,
            frames: vec![FrameGrowth {
                frame: "lock".into(),
                self_base_ns: 100.0,
                self_variant_ns: 400.0,
                total_base_ns: 100.0,
                total_variant_ns: 400.0,
            }],
        };
        let md = comparison(&g);
        assert!(
            md.contains("### on against off: point_select, 1 thread\n"),
            "{md}"
        );
        assert!(
            md.contains("off 1.1 µs (10 transactions), on 1.6 µs (9 transactions), +40.9%"),
            "{md}"
        );
        assert!(
            md.contains("| `lock` | 0.10 | 0.40 | +0.30 | 0.10 | 0.40 | +0.30 |"),
            "{md}"
        );
        assert!(cell_text("operator|").contains("\\|"));
    }
}
