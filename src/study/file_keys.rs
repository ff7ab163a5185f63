//! Reading a study file so that all its mistakes are found at once: every unknown key (with
//! the nearest known one), then every value of the wrong type, each with its line. serde stops
//! at the first problem, so the file is first read as a table with spans, its unknown keys
//! are noted and taken out, and it is deserialized again after each bad value is taken out.
//!
//! The known keys of each table are the fields its serde struct asks for (`fields_of`), so
//! they cannot drift from what serde accepts.

use crate::results::profile_settings::ProfileTable;
pub use crate::results::study::Study;
use crate::results::study::{
    BuildSpec, CostSettings, CpuPlacement, Dataset, FullSize, Limits, Variant, WorkloadStep,
};
use serde::de::{self, Deserialize, Visitor};
use std::ops::Range;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Where in a study file a mistake is, for its line number.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// The study as a whole.
    Study,
    /// A key, in dotted form (`rounds`, `cost.events`).
    Key(&'static str),
    /// The variant of this name.
    Variant(String),
    /// A key of the variant of this name (its `name` where the key is not written).
    VariantKey(String, &'static str),
    /// The workload entry at this index.
    Workload(usize),
}

/// A mistake and where it starts in the text (a byte offset), when known.
pub type Found = (Option<usize>, String);

/// The fields serde's derived `Deserialize` of `T` asks for, by asking it.
pub fn fields_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Asked;
    #[derive(Debug)]
    struct Fields(&'static [&'static str]);
    impl std::fmt::Display for Fields {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{:?}", self.0)
        }
    }
    impl std::error::Error for Fields {}
    impl de::Error for Fields {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Fields(&[])
        }
    }
    impl<'de> de::Deserializer<'de> for Asked {
        type Error = Fields;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fields> {
            Err(Fields(&[]))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Fields> {
            Err(Fields(fields))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    match T::deserialize(Asked) {
        Err(Fields(f)) => f,
        Ok(_) => &[],
    }
}

/// The tables of a study file that have a struct of their own.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Study,
    Variant,
    Build,
    Workload,
    Dataset,
    Cost,
    Limits,
    Profile,
    Full,
    Cpus,
}

impl Kind {
    fn fields(self) -> &'static [&'static str] {
        match self {
            Kind::Study => fields_of::<Study>(),
            Kind::Variant => fields_of::<Variant>(),
            Kind::Build => fields_of::<BuildSpec>(),
            Kind::Workload => fields_of::<WorkloadStep>(),
            Kind::Dataset => fields_of::<Dataset>(),
            Kind::Cost => fields_of::<CostSettings>(),
            Kind::Limits => fields_of::<Limits>(),
            Kind::Profile => fields_of::<ProfileTable>(),
            Kind::Full => fields_of::<FullSize>(),
            Kind::Cpus => fields_of::<CpuPlacement>(),
        }
    }

    /// The table a key of this one holds, if it has a struct of its own.
    fn child(self, key: &str) -> Option<Kind> {
        Some(match (self, key) {
            (Kind::Study, "variant") => Kind::Variant,
            (Kind::Study, "workload") => Kind::Workload,
            (Kind::Study, "dataset") => Kind::Dataset,
            (Kind::Study, "cost") => Kind::Cost,
            (Kind::Study, "limits") => Kind::Limits,
            (Kind::Study, "profile") => Kind::Profile,
            (Kind::Study, "full") => Kind::Full,
            (Kind::Study, "cpus") => Kind::Cpus,
            (Kind::Variant, "build") => Kind::Build,
            _ => return None,
        })
    }

    /// How the file writes this table, for "in …" after an unknown key.
    fn written(self) -> &'static str {
        match self {
            Kind::Study => "",
            Kind::Variant => " in [[variant]]",
            Kind::Build => " in a variant's build",
            Kind::Workload => " in [[workload]]",
            Kind::Dataset => " in [dataset]",
            Kind::Cost => " in [cost]",
            Kind::Limits => " in [limits]",
            Kind::Profile => " in [profile]",
            Kind::Full => " in [full]",
            Kind::Cpus => " in cpus",
        }
    }
}

/// Takes the unknown keys out of `table` (a `kind`), noting each with the nearest known key.
fn unknown_keys(table: &mut DeTable<'_>, kind: Kind, found: &mut Vec<Found>) {
    let known = kind.fields();
    let unknown: Vec<(usize, String)> = table
        .keys()
        .filter(|k| !known.contains(&k.get_ref().as_ref()))
        .map(|k| (k.span().start, k.get_ref().to_string()))
        .collect();
    for (at, key) in unknown {
        table.remove(key.as_str());
        found.push((
            Some(at),
            format!(
                "unknown key `{key}`{}{}",
                kind.written(),
                crate::error::suggestion(&key, known.iter().copied())
            ),
        ));
    }
    for (k, v) in table.iter_mut() {
        if let Some(child) = kind.child(k.get_ref()) {
            match v.get_mut() {
                DeValue::Table(t) => unknown_keys(t, child, found),
                DeValue::Array(a) => {
                    for item in a.iter_mut() {
                        if let DeValue::Table(t) = item.get_mut() {
                            unknown_keys(t, child, found);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// Takes out of `table` the key (at any depth) whose plain value (neither a table nor an
/// array of tables) spans `at`, returning its name; `None` when no such key holds it.
fn take_value_at(table: &mut DeTable<'_>, at: &Range<usize>) -> Option<String> {
    let within = |s: Range<usize>| s.start <= at.start && at.end <= s.end.max(s.start + 1);
    let mut hit = None;
    for (k, v) in table.iter_mut() {
        let tables =
            matches!(v.get_ref(), DeValue::Array(a) if a.iter().any(|i| i.get_ref().is_table()));
        if !tables && !within(v.span()) {
            continue;
        }
        let deeper = match v.get_mut() {
            DeValue::Table(t) => take_value_at(t, at),
            DeValue::Array(a) if a.iter().any(|i| i.get_ref().is_table()) => {
                a.iter_mut().find_map(|i| match i.get_mut() {
                    DeValue::Table(t) => take_value_at(t, at),
                    _ => None,
                })
            }
            _ => {
                hit = Some(k.get_ref().to_string());
                break;
            }
        };
        if deeper.is_some() {
            return deeper;
        }
    }
    let key = hit?;
    table.remove(key.as_str()).map(|_| key)
}

/// Reads `text` as a study: the study as written (unknown keys aside), or every mistake found.
/// A syntax error is the only mistake reported (the rest of the file cannot be read).
pub fn read(text: &str) -> (Option<Study>, Vec<Found>) {
    let root = match DeTable::parse(text) {
        Ok(r) => r,
        Err(e) => return (None, vec![serde_mistake(&e)]),
    };
    let span = root.span();
    let mut table = root.into_inner();
    let mut found = Vec::new();
    unknown_keys(&mut table, Kind::Study, &mut found);
    let mut bad_values = false;
    for _ in 0..100 {
        let de = toml::de::Deserializer::from(Spanned::new(span.clone(), table.clone()));
        match Study::deserialize(de) {
            Ok(study) if !bad_values => return (Some(study), found),
            Ok(_) => break,
            Err(e) => {
                bad_values = true;
                let (at, what) = serde_mistake(&e);
                match e.span().and_then(|s| take_value_at(&mut table, &s)) {
                    Some(key) => found.push((at, format!("`{key}`: {what}"))),
                    None => {
                        found.push((at, what));
                        break;
                    }
                }
            }
        }
    }
    (None, found)
}

fn serde_mistake(e: &toml::de::Error) -> Found {
    (
        e.span().map(|s| s.start),
        e.message().trim().replace('\n', " "),
    )
}

/// Where `place` is written in `text` (a byte offset): the key, the variant's `name`, the
/// workload entry's `workload`; `None` for the study as a whole or a place not written (a
/// variant a sweep made).
pub fn place_of(text: &str, place: &Place) -> Option<usize> {
    let root = DeTable::parse(text).ok()?.into_inner();
    let entries = |key: &str| -> Vec<DeTable<'_>> {
        match root.get(key).map(|v| v.get_ref()) {
            Some(DeValue::Array(a)) => a
                .iter()
                .filter_map(|i| i.get_ref().as_table().cloned())
                .collect(),
            _ => Vec::new(),
        }
    };
    let key_in = |t: &DeTable<'_>, key: &str| t.get_key_value(key).map(|(k, _)| k.span().start);
    match place {
        Place::Study => None,
        Place::Key(path) => {
            let mut table = root.clone();
            let mut parts = path.split('.').peekable();
            while let Some(part) = parts.next() {
                if parts.peek().is_none() {
                    return key_in(&table, part);
                }
                table = table.get(part)?.get_ref().as_table()?.clone();
            }
            None
        }
        Place::Variant(name) | Place::VariantKey(name, _) => {
            let key = match place {
                Place::VariantKey(_, key) => *key,
                _ => "name",
            };
            entries("variant").iter().find_map(|t| {
                let (k, v) = t.get_key_value("name")?;
                (v.get_ref().as_str() == Some(name))
                    .then(|| key_in(t, key).unwrap_or(k.span().start))
            })
        }
        Place::Workload(i) => entries("workload")
            .get(*i)
            .and_then(|t| key_in(t, "workload")),
    }
}

/// The line (from 1) of byte offset `at` in `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_keys_are_what_serde_accepts() {
        let study = Kind::Study.fields();
        assert!(
            study.contains(&"threads") && study.contains(&"variant"),
            "{study:?}"
        );
        assert!(Kind::Variant.fields().contains(&"scenario"));
        assert!(Kind::Build.fields().contains(&"source"));
        // Every table's fields, and nothing else, pass serde's deny_unknown_fields.
        for kind in [
            Kind::Study,
            Kind::Variant,
            Kind::Build,
            Kind::Workload,
            Kind::Dataset,
            Kind::Cost,
            Kind::Limits,
            Kind::Profile,
            Kind::Full,
            Kind::Cpus,
        ] {
            assert!(!kind.fields().is_empty(), "{kind:?}");
        }
        // A [profile] table is read by hand (profile = true is a table too): its keys are
        // the written table's.
        let (study, found) = read("name = \"t\"\n[profile]\nenabled = true\nfrequency = 99\n");
        assert!(found.is_empty() && study.is_some());
        let e = toml::from_str::<Dataset>("nope = 1")
            .unwrap_err()
            .to_string();
        for f in Kind::Dataset.fields() {
            assert!(e.contains(&format!("`{f}`")), "{f}: {e}");
        }
    }

    #[test]
    fn every_unknown_key_and_bad_value_is_found_with_its_place() {
        let text = "name = \"t\"\nthread = [1]\nrounds = \"x\"\nduration = \"y\"\n\
                    [[variant]]\nname = \"a\"\nscenaro = \"ps_off\"\n[dataset]\ntable = 3\n";
        let (study, found) = read(text);
        assert!(study.is_none());
        let lines: Vec<(usize, &str)> = found
            .iter()
            .map(|(at, m)| (line_of(text, at.unwrap()), m.as_str()))
            .collect();
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert!(lines.contains(&(2, "unknown key `thread`; did you mean `threads`?")));
        assert!(lines.contains(&(
            7,
            "unknown key `scenaro` in [[variant]]; did you mean `scenario`?"
        )));
        assert!(lines
            .iter()
            .any(|(l, m)| *l == 9 && m.starts_with("unknown key `table`")));
        assert!(lines.contains(&(3, "`rounds`: invalid type: string \"x\", expected u32")));
        assert!(lines
            .iter()
            .any(|(l, m)| *l == 4 && m.starts_with("`duration`: invalid type")));
    }

    #[test]
    fn unknown_keys_alone_leave_the_study() {
        let (study, found) = read("name = \"t\"\nthread = [1]\n");
        assert_eq!(study.unwrap().name, "t");
        assert_eq!(found.len(), 1);
    }
}
