//! SVG flame graphs with inferno: a cell's profile, and differentials of two cells.

use anyhow::{bail, Context, Result};
use inferno::flamegraph::{self, Options};

/// Render sorted folded lines (`stack ns` or `stack base_ns variant_ns`) as an SVG whose
/// widths are CPU ns per transaction.
pub fn svg(lines: &[String], title: &str, subtitle: &str) -> Result<Vec<u8>> {
    if lines.is_empty() {
        bail!("no stacks to draw for {title}");
    }
    let mut opts = Options::default();
    opts.title = title.to_string();
    opts.subtitle = Some(subtitle.to_string());
    opts.count_name = "ns of CPU per transaction".into();
    opts.hash = true;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), &mut out)
        .with_context(|| format!("drawing the flame graph {title}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_and_differential_graphs_render() {
        let plain = super::svg(&["a;b 10".into(), "a;c 5".into()], "t", "s").unwrap();
        let text = String::from_utf8(plain).unwrap();
        assert!(
            text.starts_with("<?xml") && text.contains(">b (10 ns of CPU per transaction"),
            "{}",
            &text[..400]
        );
        let diff = super::svg(&["a;b 10 30".into(), "a;c 5 5".into()], "d", "s").unwrap();
        let text = String::from_utf8(diff).unwrap();
        // inferno's tooltip gives the leaf's growth (20 of 35 ns) after its width.
        assert!(
            text.contains(">b (30 ns of CPU per transaction, 85.71%; +57.14%)"),
            "{}",
            &text[..400]
        );
        assert!(super::svg(&[], "t", "s").is_err());
    }
}
