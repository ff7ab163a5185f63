//! Property tests: the study-file parser and the results reader never panic, and every
//! rejection is a usage error (exit code 2) with a one-line cause.

use proptest::prelude::*;
use psbench::error::is_usage;
use psbench::results::document;
use psbench::study::file;

const STUDY: &str = include_str!("../../studies/pfs-threads.toml");

/// A valid results document to mutate.
fn results_json() -> String {
    let study = file::parse(STUDY, "s").unwrap();
    let mut r = psbench::results::StudyResults::new(study, "t");
    r.started_unix = 1;
    r.seed = 1;
    serde_json::to_string(&r).unwrap()
}

fn mutate(text: &str, cuts: &[(usize, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for (pos, b) in cuts {
        if bytes.is_empty() {
            break;
        }
        let i = pos % bytes.len();
        match b % 3 {
            0 => bytes[i] = *b,
            1 => {
                bytes.remove(i);
            }
            _ => bytes.insert(i, *b),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn study_parser_never_panics(cuts in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let text = mutate(STUDY, &cuts);
        if let Err(e) = file::parse(&text, "fuzz.toml") {
            prop_assert!(is_usage(&e), "{e:#}");
            // Every mistake of a file is reported at once, one line each, each naming the file.
            let text = e.to_string();
            prop_assert!(!text.is_empty() && text.lines().all(|l| l.starts_with("fuzz.toml")), "{text}");
        }
    }

    #[test]
    fn study_parser_survives_arbitrary_text(text in "\\PC{0,200}") {
        if let Err(e) = file::parse(&text, "fuzz.toml") {
            prop_assert!(is_usage(&e));
        }
    }

    #[test]
    fn results_reader_never_panics(cuts in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let text = mutate(&results_json(), &cuts);
        if let Err(e) = document::parse(&text, "fuzz.json") {
            prop_assert!(is_usage(&e), "{e:#}");
        }
    }
}

#[test]
fn the_unmutated_inputs_parse() {
    file::parse(STUDY, "s").unwrap();
    document::parse(&results_json(), "r").unwrap();
    let e = document::parse("{\"format\": \"other\"}", "x.json").unwrap_err();
    assert!(is_usage(&e) && e.to_string().contains("not a psbench results file"));
}
