//! The report as a reader first sees it: the table at a glance and one line per variant on
//! the first screen of report.html (1400 × 900 in headless Chromium) for the default study,
//! pfs-builds and a sweep (real runs); every ratio new / base; and no chart legend over a
//! line, a band or a reference line.

use crate::common;

use psbench::report::{render, Format, Subject};
use psbench::results::StudyResults;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The checked-in documents of real runs, cut to a few rounds: (name, directory).
fn documents() -> Vec<(&'static str, PathBuf)> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    vec![
        ("report-study", data.join("report-study")),
        ("pfs-overhead", data.join("first-screen/pfs-overhead")),
        ("pfs-builds", data.join("first-screen/pfs-builds")),
        ("mysql-sweep", data.join("first-screen/mysql-sweep")),
    ]
}

fn html_of(dir: &Path) -> String {
    let res = StudyResults::load(dir).unwrap();
    render(
        &Subject::study(res, &dir.display().to_string()),
        Format::Html,
    )
    .unwrap()
}

/// Numbers of an SVG `points="x,y x,y …"` list.
fn points(tag: &str) -> Vec<(f64, f64)> {
    let Some(start) = tag.find("points=\"") else {
        return Vec::new();
    };
    tag[start + 8..]
        .split('"')
        .next()
        .unwrap()
        .split_whitespace()
        .filter_map(|p| {
            let (x, y) = p.split_once(',')?;
            Some((x.parse().ok()?, y.parse().ok()?))
        })
        .collect()
}

fn number(tag: &str, name: &str) -> Option<f64> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[start..].split('"').next()?.parse().ok()
}

/// Per chart with a legend: the legend's left edge (its swatches, 16 × 10) and the rightmost x
/// of anything drawn in the plot (lines, bands, reference and grid lines).
fn legends_and_plots(html: &str) -> Vec<(f64, f64)> {
    html.split("<svg")
        .skip(1)
        .filter_map(|svg| {
            let svg = svg.split("</svg>").next().unwrap();
            let tags: Vec<&str> = svg.split('<').collect();
            let swatches: Vec<f64> = tags
                .iter()
                .filter(|t| t.starts_with("rect"))
                .filter(|t| number(t, "width") == Some(16.0) && number(t, "height") == Some(10.0))
                .filter_map(|t| number(t, "x"))
                .collect();
            let legend = swatches.iter().copied().reduce(f64::min)?;
            let drawn = tags
                .iter()
                .filter(|t| t.starts_with("polyline") || t.starts_with("polygon"))
                .flat_map(|t| points(t))
                .map(|(x, _)| x)
                .fold(f64::NEG_INFINITY, f64::max);
            Some((legend, drawn))
        })
        .collect()
}

#[test]
fn no_legend_covers_a_line_or_a_band() {
    // A cost-only sweep draws no chart with a legend; the others must, or this checks nothing.
    let mut checked = 0;
    for (name, dir) in documents() {
        let charts = legends_and_plots(&html_of(&dir));
        if name != "mysql-sweep" {
            assert!(!charts.is_empty(), "{name}: no chart with a legend");
        }
        checked += charts.len();
        for (legend, drawn) in charts {
            assert!(
                drawn < legend,
                "{name}: a legend starts at x = {legend}, where the plot still draws (up to {drawn})"
            );
        }
    }
    assert!(checked > 0);
}

#[test]
fn every_ratio_reads_new_over_base() {
    let dir = &documents()[0].1;
    let res = StudyResults::load(dir).unwrap();
    let s = Subject::study(res, "fixture");
    let csv = render(&s, Format::Csv).unwrap();
    let file = |name: &str| -> Vec<Vec<String>> {
        csv.split(&format!("# {name}\n"))
            .nth(1)
            .unwrap()
            .split("\n# ")
            .next()
            .unwrap()
            .lines()
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect()
    };
    // The relative table (step, threads, then the pair's ratio) and the per-thread table
    // (step, pair, then a ratio per thread count) give the same numbers.
    let relative = file("relative.csv");
    let by_threads = file("ratio_by_threads.csv");
    assert!(by_threads[0][1].starts_with("ratio"), "{:?}", by_threads[0]);
    let mut compared = 0;
    for row in &relative[1..] {
        let (step, threads, ratio) = (&row[0], &row[1], &row[2]);
        let col = by_threads[0]
            .iter()
            .position(|h| h == &format!("{threads} thr"))
            .unwrap();
        let other = by_threads[1..].iter().find(|r| &r[0] == step).unwrap();
        assert_eq!(&other[col], ratio, "{step} at {threads}");
        assert!(other[1].starts_with("default / ps_off"), "{other:?}");
        compared += 1;
    }
    assert_eq!(compared, 4);
    // Nothing anywhere says base / new.
    for f in [Format::Md, Format::Html, Format::Csv] {
        let text = render(&s, f).unwrap();
        assert!(!text.contains("base / new"), "{f:?}");
        assert!(!text.contains("ps_off / default"), "{f:?}");
    }
}

/// `page` opened at 1400 × 900 with a probe that writes the bottom of the table at a glance,
/// of the per-variant Findings, the page's width and the table's right edge into the DOM
/// Chromium dumps.
fn first_screen(chromium: &Path, page: &Path, tmp: &Path) -> (f64, f64, f64, f64) {
    let probe = "<script>const r = s => document.querySelector(s).getBoundingClientRect(); document.body.setAttribute('data-screen', [r('table.glance').bottom, r('ul.per-variant').bottom, document.documentElement.scrollWidth, r('table.glance').right].map(Math.ceil).join(' '))</script>";
    let probed = tmp.join("probed.html");
    let html = std::fs::read_to_string(page).unwrap();
    std::fs::write(&probed, html.replace("</body>", &format!("{probe}</body>"))).unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1400,900",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", tmp.join("profile").display()))
        .arg(format!("file://{}", probed.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let v: Vec<f64> = dom
        .split("data-screen=\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no probe result: {}", common::text(&out)))
        .split('"')
        .next()
        .unwrap()
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    (v[0], v[1], v[2], v[3])
}

#[test]
fn the_glance_table_and_a_line_per_variant_fill_the_first_screen() {
    let Some(chromium) = common::require::chromium() else {
        return;
    };
    for (name, dir) in documents() {
        let tmp = common::tempdir().unwrap();
        let page = tmp.path().join("report.html");
        std::fs::write(&page, html_of(&dir)).unwrap();
        let (glance, lines, width, right) = first_screen(&chromium, &page, tmp.path());
        assert!(
            glance <= 900.0,
            "{name}: the table at a glance ends at {glance} px"
        );
        assert!(
            lines <= 900.0,
            "{name}: the per-variant lines end at {lines} px"
        );
        assert!(width <= 1400.0, "{name}: the page is {width} px wide");
        // The table scrolls inside its box: a page that fits can still hide its last columns.
        assert!(
            right <= 1400.0,
            "{name}: the table at a glance ends at x = {right} px"
        );
    }
}

/// The Markdown report's table at a glance, from its heading to the next.
fn glance_of(dir: &Path) -> String {
    let res = StudyResults::load(dir).unwrap();
    let md = render(&Subject::study(res, &dir.display().to_string()), Format::Md).unwrap();
    let from = md.find("### At a glance").expect("a glance");
    let rest = &md[from + 3..];
    let to = rest.find("\n### ").map_or(rest.len(), |i| i + 1);
    md[from..from + 3 + to].to_string()
}

#[test]
fn the_glance_fits_a_terminal_of_100_columns() {
    for (name, dir) in documents() {
        let g = glance_of(&dir);
        for line in g.lines() {
            assert!(
                line.chars().count() <= 100,
                "{name}: a glance line of {} characters:\n{line}\n\n{g}",
                line.chars().count()
            );
        }
        // One line per variant, and the marks the rows use are named in the note.
        let rows: Vec<&str> = g.lines().filter(|l| l.starts_with("| ")).skip(1).collect();
        assert!(!rows.is_empty(), "{name}: {g}");
        for mark in ["▲", "▼", "≈", "?", "⚑", "—"] {
            assert!(g.contains(&format!("{mark} ")), "{name}: {mark} unnamed");
        }
        assert!(g.contains("(their own threshold)"), "{name}: {g}");
    }
    // The default study's real run: eleven variants against ps_off, each with its count, and
    // throughput as how many of its 9 cells are resolved.
    let g = glance_of(&documents()[1].1);
    let rows: Vec<&str> = g.lines().filter(|l| l.contains(" / ps_off |")).collect();
    assert_eq!(rows.len(), 11, "{g}");
    assert!(g.contains("| throughput (9 cells) |"), "{g}");
    assert!(rows[0].starts_with("| default / ps_off | 1.087 ▲ |"), "{g}");
}
