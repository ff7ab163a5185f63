//! study.toml, the study as run written beside its results: every built-in study, with
//! overrides applied and sweeps expanded, reads back as the same study.

use psbench::study::builtin::{builtin, BUILTIN};
use psbench::study::file::parse;
use psbench::study::study_toml::text;

#[test]
fn every_builtin_study_reads_back_as_written() {
    for (name, _) in BUILTIN {
        let study = builtin(name).unwrap();
        let written = text(&study).unwrap();
        let back =
            parse(&written, "study.toml").unwrap_or_else(|e| panic!("{name}: {e:#}\n{written}"));
        assert_eq!(back, study, "{name}\n{written}");
    }
}

#[test]
fn overrides_and_expanded_sweeps_are_written_as_run() {
    for (name, overrides) in [
        (
            "pfs-overhead",
            psbench::study::overrides::Overrides {
                time: Some(0.5),
                rounds: Some(7),
                threads: Some(vec![1, 3]),
                variants: Some(vec!["ps_off".into(), "default".into()]),
                ..Default::default()
            },
        ),
        (
            "pg-sweep",
            psbench::study::overrides::Overrides {
                full: true,
                ..Default::default()
            },
        ),
    ] {
        let mut study = builtin(name).unwrap();
        overrides.apply(&mut study).unwrap();
        let written = text(&study).unwrap();
        // A sweep is written out release by release, each with its `version`.
        assert!(!written.contains("versions"), "{written}");
        let back = parse(&written, "study.toml").unwrap();
        assert_eq!(back, study, "{name}");
    }
}
