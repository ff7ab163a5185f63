//! A study file's `[[published]]` entries, checked when it is read: each names a published
//! study psbench knows, variants, a base, steps and thread counts the study has, a regime it
//! knows, and one figure of one kind (or why it is not measured). Each mistake names the
//! entry and its key.

use crate::results::published::Published;
use crate::results::study::Study;

impl Study {
    /// Every mistake of the `[[published]]` entries, a line each.
    pub(super) fn published_mistakes(&self) -> Vec<String> {
        let steps: Vec<String> = self
            .cells()
            .into_iter()
            .map(|(s, _)| s)
            .chain(self.workloads.iter().flat_map(|w| self.cost_labels(w)))
            .collect();
        let threads: Vec<u32> = self.cells().into_iter().map(|(_, t)| t).collect();
        let mut out = Vec::new();
        for (i, p) in self.published.iter().enumerate() {
            let at = format!("[[published]] {} ('{}')", i + 1, p.figure);
            for m in entry_mistakes(self, p, &steps, &threads) {
                out.push(format!("{at}: {m}"));
            }
        }
        out
    }
}

fn entry_mistakes(s: &Study, p: &Published, steps: &[String], threads: &[u32]) -> Vec<String> {
    let mut m = Vec::new();
    if crate::results::sources::source(&p.source).is_none() {
        let keys: Vec<&str> = crate::results::sources::SOURCES
            .iter()
            .map(|s| s.key)
            .collect();
        m.push(format!(
            "`source`: no published study '{}' (psbench knows: {})",
            p.source,
            keys.join(", ")
        ));
    }
    if p.figure.trim().is_empty() {
        m.push("`figure`: say what the study printed, in a line".into());
    }
    let has = |v: &str| s.variants.iter().any(|x| x.name == v);
    let named = p
        .variants
        .iter()
        .map(|v| ("variants", v))
        .chain(p.base.iter().map(|b| ("base", b)))
        .chain(p.ranking.iter().flatten().map(|v| ("ranking", v)));
    for (key, v) in named {
        if !has(v) {
            m.push(format!(
                "`{key}`: no variant '{v}'{}",
                crate::error::suggestion(v, s.variants.iter().map(|x| x.name.as_str()))
            ));
        }
    }
    for st in p.steps.iter().filter(|st| !steps.contains(st)) {
        let mut known: Vec<&str> = steps.iter().map(String::as_str).collect();
        known.dedup();
        m.push(format!(
            "`steps`: no step '{st}' (it has: {})",
            known.join(", ")
        ));
    }
    for t in p.threads.iter().filter(|t| !threads.contains(t)) {
        let mut runs = threads.to_vec();
        runs.sort();
        runs.dedup();
        let runs: Vec<String> = runs.iter().map(u32::to_string).collect();
        m.push(format!(
            "`threads`: the study does not run {t} threads (it runs {})",
            runs.join(", ")
        ));
    }
    if let Some(r) = p
        .regime
        .as_deref()
        .filter(|r| !["cached", "io-bound"].contains(r))
    {
        m.push(format!(
            "`regime`: '{r}' is neither \"cached\" nor \"io-bound\""
        ));
    }
    let kinds = p.kinds();
    match (kinds.len(), &p.not_measured) {
        (0, None) => m.push(
            "no figure: give one of ratio, ratios, range, at_most, at_least, absolute, ranking, from_threads, from_rate (or not_measured = \"why\")"
                .into(),
        ),
        (n, _) if n > 1 => m.push(format!(
            "one figure an entry: it gives {}",
            kinds.join(", ")
        )),
        _ => {}
    }
    if !p.ratios.is_empty() && p.ratios.len() != p.threads.len() {
        m.push(format!(
            "`ratios`: {} figures for {} thread counts: give one per entry of `threads`",
            p.ratios.len(),
            p.threads.len()
        ));
    }
    let values = p
        .ratio
        .iter()
        .chain(&p.ratios)
        .chain(p.range.iter().flatten())
        .chain(&p.at_most)
        .chain(&p.at_least)
        .chain(&p.absolute)
        .chain(&p.base_absolute)
        .chain(&p.from_rate);
    if values.clone().any(|x| !(x.is_finite() && *x > 0.0)) {
        m.push("figures are numbers above 0".into());
    }
    if p.tolerance.is_some_and(|t| !(0.0..1.0).contains(&t)) {
        m.push("`tolerance`: a share of the figure, from 0 to below 1".into());
    }
    let why = |w: &Option<String>| w.as_deref().is_some_and(|w| !w.trim().is_empty());
    if p.tolerance.is_some() && !why(&p.tolerance_why) {
        m.push("`tolerance_why`: a tolerance of the entry's own, in place of the study's threshold, says why".into());
    }
    let pooled = p.read == crate::results::published::Reading::Pooled;
    if pooled && !why(&p.read_why) {
        m.push(
            "`read_why`: a figure read as the steps pooled says why (what its text summarises)"
                .into(),
        );
    }
    if p.absolute.is_some() && p.unit.as_deref().is_none_or(str::is_empty) {
        m.push("`unit`: an absolute figure says its unit (\"QPS\", \"MB/s\")".into());
    }
    if p.not_measured.is_none() {
        let compares = p.ranking.is_empty();
        if compares && p.variants.is_empty() {
            m.push("`variants`: name the variants the figure is about".into());
        }
        if p.steps.is_empty() {
            m.push("`steps`: name the steps the figure is about".into());
        }
        if p.ranking.len() == 1 {
            m.push("`ranking`: two tiers or more, the costliest first".into());
        }
    }
    m
}
