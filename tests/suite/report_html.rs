//! The HTML report of the checked-in study: self-contained, with the expected charts and
//! series, and opened in headless Chromium without console errors (a screenshot is kept in
//! target/report-html/screenshot.png for a human to look at).

use crate::common;

use psbench::report::charts::PALETTE;
use psbench::report::{render, Format, Subject};
use psbench::results::StudyResults;
use std::path::Path;
use std::process::Command;

fn fixture() -> StudyResults {
    StudyResults::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study"))
        .unwrap()
}

fn html() -> String {
    render(
        &Subject::study(fixture(), "tests/data/report-study"),
        Format::Html,
    )
    .unwrap()
}

/// Attribute value of the first `name="…"` in `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[start..].split('"').next()
}

/// (kind, declared series, polylines drawn in a palette colour) of every chart.
fn charts(html: &str) -> Vec<(String, usize, usize)> {
    let palette: Vec<String> = PALETTE
        .iter()
        .map(|(r, g, b)| format!("#{r:02X}{g:02X}{b:02X}"))
        .collect();
    html.split("<figure class=\"chart\"")
        .skip(1)
        .map(|chunk| {
            let fig = chunk.split("</figure>").next().unwrap();
            let open = fig.split('>').next().unwrap();
            let kind = attr(open, "data-kind").unwrap().to_string();
            let series = attr(open, "data-series").unwrap().parse().unwrap();
            let drawn = fig
                .split("<polyline")
                .skip(1)
                .filter(|p| {
                    let tag = p.split('>').next().unwrap();
                    attr(tag, "stroke")
                        .is_some_and(|s| palette.iter().any(|c| c.eq_ignore_ascii_case(s)))
                        && attr(tag, "opacity") == Some("1")
                })
                .count();
            (kind, series, drawn)
        })
        .collect()
}

#[test]
fn the_page_is_self_contained() {
    let h = html();
    for needle in [
        "<script",
        "<link",
        " src=",
        "href=\"http",
        "url(",
        "@import",
        "@font-face",
    ] {
        assert!(!h.contains(needle), "the report references {needle}");
    }
    // Every anchor in the navigation points into the page.
    for href in h.split("href=\"").skip(1) {
        let target = href.split('"').next().unwrap();
        assert!(target.starts_with('#'), "external link {target}");
        assert!(
            h.contains(&format!("id=\"{}\"", &target[1..])),
            "dangling {target}"
        );
    }
}

#[test]
fn every_step_has_its_charts_with_one_series_per_variant_or_round() {
    let r = fixture();
    let charts = charts(&html());
    let steps = ["point_select", "read_only"];
    let kinds: Vec<&str> = charts.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        kinds,
        steps
            .iter()
            .flat_map(|_| ["throughput", "ratio", "per-second", "latency"])
            .collect::<Vec<_>>()
    );
    for (i, step) in steps.iter().enumerate() {
        let c = &charts[i * 4..i * 4 + 4];
        let top = r
            .cells
            .iter()
            .filter(|x| x.key.step == *step)
            .map(|x| x.key.threads)
            .max()
            .unwrap();
        let rounds_at_top = r
            .cells
            .iter()
            .filter(|x| x.key.step == *step && x.key.threads == top && x.ok)
            .filter(|x| !x.per_second_tps.is_empty())
            .count();
        // 2 variants; 1 pair (default vs ps_off); every round at the top thread count.
        let expected = [2, 1, rounds_at_top, 2];
        for (chart, want) in c.iter().zip(expected) {
            assert_eq!(chart.1, want, "{step} {} declares {want} series", chart.0);
            assert_eq!(chart.2, want, "{step} {} draws {want} series", chart.0);
        }
    }
}

#[test]
fn device_io_and_regimes_get_their_charts_and_table() {
    use psbench::results::{DeviceIo, Regime, RegimeCheck};
    let mut r = fixture();
    // The fixture's cells as an IO-bound study would record them: each second's device IO
    // and a regime check, one variant's cells outside it.
    for c in r.cells.iter_mut() {
        let mb = if c.key.variant == "default" {
            40.0
        } else {
            20.0
        };
        c.per_second_device = (0..c.per_second_tps.len())
            .map(|i| DeviceIo {
                read_mb_s: mb + i as f64,
                write_mb_s: mb / 2.0,
                read_iops: 100.0 * mb,
                write_iops: 10.0 * mb,
            })
            .collect();
        c.resources.device = c.per_second_device.first().copied();
        c.regime = Some(RegimeCheck {
            asked: Regime::IoBound,
            disk_reads_per_lookup: if c.key.variant == "default" {
                0.01
            } else {
                1.0
            },
        });
        if c.key.variant == "default" {
            c.flags.push(psbench::results::Flag::NotIoBound);
        }
        c.steady_from_s = Some(0);
    }
    let h = render(&Subject::study(r.clone(), "x"), Format::Html).unwrap();
    let kinds: Vec<String> = charts(&h).into_iter().map(|c| c.0).collect();
    for step in 0..2 {
        assert_eq!(
            kinds[step * 6..step * 6 + 6],
            [
                "throughput",
                "ratio",
                "per-second",
                "device-reads",
                "device-writes",
                "latency"
            ],
            "{kinds:?}"
        );
    }
    assert!(h.contains("Regime, steady state and device IO"));
    let md = render(&Subject::study(r.clone(), "x"), Format::Md).unwrap();
    assert!(md.contains("| io-bound ✓ |"), "{md}");
    assert!(md.contains("io-bound ✗"), "{md}");
    // The terminal's tables too, with a Finding per variant.
    let terminal = psbench::report::render::markdown::headline(&Subject::study(r, "x"));
    assert!(
        terminal.contains("| io-bound ✗ 3 of 3 rounds outside |"),
        "{terminal}"
    );
    assert!(
        terminal.contains("default asked for io-bound but"),
        "{terminal}"
    );
    assert!(
        terminal.contains("ps_off ran io-bound as asked"),
        "{terminal}"
    );
}

/// (kind, y labels, x labels) of every chart: plotters writes y tick labels anchored at
/// their end, and x tick labels centred after the title and the two axis descriptions.
fn axis_labels(html: &str) -> Vec<(String, Vec<String>, Vec<String>)> {
    html.split("<figure class=\"chart\"")
        .skip(1)
        .map(|chunk| {
            let fig = chunk.split("</figure>").next().unwrap();
            let kind = attr(fig.split('>').next().unwrap(), "data-kind").unwrap();
            let texts: Vec<(Option<&str>, String)> = fig
                .split("<text")
                .skip(1)
                .map(|t| {
                    let (tag, rest) = t.split_once('>').unwrap();
                    let body = rest.split("</text>").next().unwrap().trim().to_string();
                    (attr(tag, "text-anchor"), body)
                })
                .collect();
            let y = texts
                .iter()
                .filter(|(a, _)| *a == Some("end"))
                .map(|(_, t)| t.clone())
                .collect();
            let x = texts
                .iter()
                .skip(3)
                .filter(|(a, t)| *a == Some("middle") && !t.is_empty())
                .map(|(_, t)| t.clone())
                .collect();
            (kind.to_string(), y, x)
        })
        .collect()
}

#[test]
fn a_series_that_stayed_at_zero_gets_no_chart() {
    use psbench::results::DeviceIo;
    let mut r = fixture();
    // Cached reads: the device wrote but never read.
    for c in r.cells.iter_mut() {
        c.per_second_device = (0..c.per_second_tps.len())
            .map(|i| DeviceIo {
                read_mb_s: 0.0,
                write_mb_s: 1.0 + i as f64,
                read_iops: 0.0,
                write_iops: 10.0,
            })
            .collect();
    }
    let h = render(&Subject::study(r.clone(), "x"), Format::Html).unwrap();
    let kinds: Vec<String> = charts(&h).into_iter().map(|c| c.0).collect();
    assert_eq!(
        kinds[..5],
        [
            "throughput",
            "ratio",
            "per-second",
            "device-writes",
            "latency"
        ],
        "{kinds:?}"
    );
    assert!(!kinds.iter().any(|k| k == "device-reads"), "{kinds:?}");
    // Nor writes, once they are zero too; nothing else goes.
    for c in r.cells.iter_mut() {
        for d in &mut c.per_second_device {
            d.write_mb_s = 0.0;
        }
    }
    let h = render(&Subject::study(r, "x"), Format::Html).unwrap();
    let kinds: Vec<String> = charts(&h).into_iter().map(|c| c.0).collect();
    assert_eq!(kinds.len(), 8, "{kinds:?}");
    assert!(!kinds.iter().any(|k| k.starts_with("device")), "{kinds:?}");
}

#[test]
fn every_axis_has_at_least_three_labels() {
    let mut r = fixture();
    // read_write's latency: every percentile within 9.2–11.5 ms, narrower than a 1-2-5 step
    // of a log axis (one label, "10.0", before).
    for c in r.cells.iter_mut().filter(|c| c.key.step == "read_only") {
        for (i, p) in ["p50", "p95", "p99", "p99.9", "max"].iter().enumerate() {
            c.latency_ms.insert(p.to_string(), 9.2 + 0.5 * i as f64);
        }
    }
    for h in [
        html(),
        render(&Subject::study(r, "x"), Format::Html).unwrap(),
    ] {
        let all = axis_labels(&h);
        assert_eq!(all.len(), 8);
        for (kind, y, x) in all {
            assert!(y.len() >= 3, "{kind}: y labels {y:?}");
            let mut distinct = y.clone();
            distinct.dedup();
            assert_eq!(distinct, y, "{kind}: repeated labels");
            // Categorical axes label each category; a time axis at least three seconds.
            let want = if kind == "per-second" { 3 } else { 2 };
            assert!(x.len() >= want, "{kind}: x labels {x:?}");
        }
    }
}

/// Open `page` headless; returns chromium's log and whether the screenshot was written.
fn open(chromium: &Path, page: &Path, shot: &Path, profile: &Path) -> String {
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1400,3000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "chromium failed: {log}");
    log
}

/// Console messages (errors, uncaught exceptions) as chromium logs them.
fn console_lines(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .collect()
}

#[test]
fn chromium_renders_the_page_without_console_errors() {
    let Some(chromium) = common::require::chromium() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // First make sure console errors are seen at all: a page that throws.
    let bad = tmp.path().join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><p>x</p><script>throw new Error('psbench-probe')</script>",
    )
    .unwrap();
    let log = open(
        &chromium,
        &bad,
        &tmp.path().join("bad.png"),
        &tmp.path().join("p1"),
    );
    assert!(
        console_lines(&log)
            .iter()
            .any(|l| l.contains("psbench-probe")),
        "chromium's console log is not visible, so the check below would prove nothing: {log}"
    );

    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-html");
    std::fs::create_dir_all(&out_dir).unwrap();
    let page = out_dir.join("report.html");
    std::fs::write(&page, html()).unwrap();
    let shot = out_dir.join("screenshot.png");
    let _ = std::fs::remove_file(&shot);
    let log = open(&chromium, &page, &shot, &tmp.path().join("p2"));
    let console = console_lines(&log);
    assert!(console.is_empty(), "console messages: {console:#?}");
    let png = std::fs::read(&shot).expect("a screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // A blank 1400×3000 page compresses to a few KB; tables and charts do not.
    assert!(
        png.len() > 50_000,
        "screenshot of {} bytes looks empty",
        png.len()
    );
    eprintln!("screenshot: {}", shot.display());
}

#[test]
fn the_servers_table_fits_a_1400_px_window() {
    let Some(chromium) = common::require::chromium() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // A copy of the page with a probe: the width each table needs to show its cells without
    // wrapping them, written into the DOM that chromium dumps.
    let probe = "<script>document.body.setAttribute('data-widths', Array.from(document.querySelectorAll('table')).map(t => { t.style.width = 'max-content'; return t.className + '=' + Math.ceil(t.getBoundingClientRect().width); }).join(' '))</script>";
    let page = tmp.path().join("report.html");
    std::fs::write(&page, html().replace("</body>", &format!("{probe}</body>"))).unwrap();
    let out = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1400,3000",
            "--dump-dom",
        ])
        .arg(format!(
            "--user-data-dir={}",
            tmp.path().join("p").display()
        ))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let widths = dom
        .split("data-widths=\"")
        .nth(1)
        .and_then(|w| w.split('"').next())
        .unwrap_or_else(|| panic!("no widths in the dumped page: {dom:.500}"));
    let servers: f64 = widths
        .split(' ')
        .find_map(|w| w.strip_prefix("servers="))
        .unwrap_or_else(|| panic!("{widths}"))
        .parse()
        .unwrap();
    // The page is at most 1360 px wide with its margins: the table fits without squeezing.
    // Before, eight options repeated per row needed 2109 px.
    assert!(servers <= 1360.0, "servers table {servers} px: {widths}");
}

#[test]
fn the_cost_section_draws_a_bar_per_variant_as_long_as_its_ratio() {
    let r = fixture();
    let h = html();
    let figures: Vec<&str> = h
        .split("<figure class=\"chart cost\"")
        .skip(1)
        .map(|c| c.split("</figure>").next().unwrap())
        .collect();
    assert_eq!(figures.len(), 2, "one per cost step");
    for (fig, step) in figures.iter().zip(["point_select", "read_only"]) {
        assert!(
            fig.contains(&format!("{step}: instructions per transaction")),
            "{fig}"
        );
        let bars: Vec<f64> = fig
            .split("<rect class=\"bar\"")
            .skip(1)
            .map(|b| attr(b, "width").unwrap().parse().unwrap())
            .collect();
        // One variant against the base; the 1.0 line sits where a bar of ratio 1 would end.
        assert_eq!(bars.len(), 1, "{fig}");
        let cost = |v: &str| r.cost_for(v, step).unwrap().ir_per_txn;
        let ratio = cost("default") / cost("ps_off");
        let line_x: f64 = attr(fig.split("<line").nth(1).unwrap(), "x1")
            .unwrap()
            .parse()
            .unwrap();
        let label_width = 170.0;
        let one = line_x - label_width;
        assert!(
            (bars[0] / one - ratio).abs() < 0.01,
            "bar {} for ratio {ratio}, 1.0 at {one}",
            bars[0]
        );
    }
}
