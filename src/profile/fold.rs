//! Folded stacks (`frame;frame;frame count`): from `perf script` with inferno's collapser,
//! and back and forth between text and a map.

use anyhow::{Context, Result};
use inferno::collapse::{perf, Collapse};
use std::collections::BTreeMap;

/// Stack (frames from the root, `;`-separated) → nanoseconds of CPU sampled in it.
pub type Folded = BTreeMap<String, u64>;

/// Fold `perf script` output into CPU nanoseconds per stack. inferno weighs each sample by
/// its period, which for `cpu-clock` is the CPU nanoseconds since the previous sample; when
/// perf printed no periods, each sample stands for 1/frequency seconds. Unresolved frames keep
/// their module's name, as `[mariadbd]`.
pub fn collapse(perf_script: &str, frequency: u32) -> Result<Folded> {
    let folded = collapse_weighted(perf_script)?;
    let samples = samples(perf_script);
    if total(&folded) != samples || samples == 0 {
        return Ok(folded);
    }
    let ns = 1_000_000_000 / u64::from(frequency.max(1));
    Ok(folded.into_iter().map(|(s, c)| (s, c * ns)).collect())
}

/// Samples in `perf script` output: each starts with an unindented header line.
pub fn samples(perf_script: &str) -> u64 {
    perf_script
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
        .count() as u64
}

fn collapse_weighted(perf_script: &str) -> Result<Folded> {
    let mut opts = perf::Options::default();
    opts.nthreads = 1;
    let mut out = Vec::new();
    perf::Folder::from(opts)
        .collapse(perf_script.as_bytes(), &mut out)
        .context("folding perf script output")?;
    parse(&String::from_utf8(out).context("folded stacks are not UTF-8")?)
}

/// Read folded text; later lines for the same stack add up.
pub fn parse(text: &str) -> Result<Folded> {
    let mut map = Folded::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (stack, count) = line
            .rsplit_once(' ')
            .with_context(|| format!("folded line {}: no count in '{line}'", n + 1))?;
        let count: u64 = count
            .parse()
            .with_context(|| format!("folded line {}: bad count '{count}'", n + 1))?;
        *map.entry(stack.to_string()).or_default() += count;
    }
    Ok(map)
}

/// Folded text, one stack a line, sorted (as inferno's flame graph wants it).
pub fn render(folded: &Folded) -> String {
    folded.iter().map(|(s, c)| format!("{s} {c}\n")).collect()
}

pub fn total(folded: &Folded) -> u64 {
    folded.values().sum()
}

/// Add `more` into `into` (rounds of one cell pooled).
pub fn merge(into: &mut Folded, more: &Folded) {
    for (s, c) in more {
        *into.entry(s.clone()).or_default() += c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "mariadbd  8721  3725.641156:    2004008 cpu-clock: 
\t          8a55a1 JOIN::cleanup+0x1 (/usr/sbin/mariadbd)
\t          829ab1 [unknown] (/usr/sbin/mariadbd)
\t          83d61f do_command+0x13f (/usr/sbin/mariadbd)
\t           891f5 start_thread+0x305 (/usr/lib/x86_64-linux-gnu/libc.so.6)

mariadbd  8721  3725.641160:    2004008 cpu-clock: 
\t          8a55a1 JOIN::cleanup+0x1 (/usr/sbin/mariadbd)
\t          829ab1 [unknown] (/usr/sbin/mariadbd)
\t          83d61f do_command+0x13f (/usr/sbin/mariadbd)
\t           891f5 start_thread+0x305 (/usr/lib/x86_64-linux-gnu/libc.so.6)

";

    #[test]
    fn perf_script_folds_with_module_names_for_unknown_frames() {
        let f = collapse(SCRIPT, 499).unwrap();
        assert_eq!(
            f.get("mariadbd;start_thread;do_command;[mariadbd];JOIN::cleanup"),
            Some(&(2 * 2004008)),
            "{f:?}"
        );
        assert_eq!(samples(SCRIPT), 2);
        // Without periods, each sample is 1/frequency s.
        let bare = SCRIPT.replace("    2004008 cpu-clock:", " cpu-clock:");
        assert_eq!(total(&collapse(&bare, 500).unwrap()), 2 * 2_000_000);
    }

    #[test]
    fn text_round_trip_and_merge() {
        let mut a = parse("a;b 3\na;c 1\na;b 2\n").unwrap();
        assert_eq!(a["a;b"], 5);
        merge(&mut a, &parse("a;c 4").unwrap());
        assert_eq!(render(&a), "a;b 5\na;c 5\n");
        assert!(parse("a;b x").is_err());
        assert!(parse("nocount").is_err());
    }
}
