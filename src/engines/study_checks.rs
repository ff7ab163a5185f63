//! What may be combined in one study: a study runs one engine family in all its variants
//! (MySQL/MariaDB or PostgreSQL); scenarios, settings presets, data regimes and workloads must
//! belong to it. Each engine says what it cannot run; the rules across engines are here.

use super::{of_family, variant, ALL};
use crate::error::usage;
use crate::results::study::Study;
use anyhow::Result;

/// The engine checks of a parsed study; `Ok` when everything belongs to one engine.
pub fn check(study: &Study) -> Result<()> {
    for v in &study.variants {
        match v.engine.as_deref() {
            None | Some("postgres") => {}
            Some(other) => {
                return Err(usage(format!(
                    "variant '{}': engine = '{other}': the only engine to name is postgres \
                     (MySQL-family servers are the default, or named by basedir or version)",
                    v.name
                )))
            }
        }
    }
    let first = variant::engine(&study.variants[0]);
    for v in &study.variants {
        let e = variant::engine(v);
        let named = v.engine.is_some().then_some(e.family());
        if named.is_some() && variant::build_family(v).is_some_and(|b| Some(b) != named) {
            return Err(usage(format!(
                "variant '{}': engine = 'postgres' but its server is not PostgreSQL",
                v.name
            )));
        }
        if e.family() != first.family() {
            let names: Vec<&str> = study
                .variants
                .iter()
                .filter(|w| variant::engine(w).family() == e.family())
                .map(|w| w.name.as_str())
                .collect();
            return Err(usage(format!(
                "a study runs one engine: variants {} run {}, the others a {} server",
                names.join(", "),
                e.name(),
                first.name()
            )));
        }
    }
    for v in &study.variants {
        let e = variant::engine(v);
        if let Some(sc) = v.scenario.as_deref() {
            let owner = ALL
                .iter()
                .map(|f| of_family(*f))
                .find(|o| o.family() != e.family() && o.scenario_names().contains(&sc));
            if let (Some(owner), false) = (owner, e.scenario_names().contains(&sc)) {
                return Err(usage(format!(
                    "variant '{}': scenario '{sc}' is {}'s, not a {} scenario; known: {}",
                    v.name,
                    owner.name(),
                    e.name(),
                    e.scenario_names().join(", ")
                )));
            }
        }
        e.check_variant(v)?;
    }
    first.check_study(study)
}
