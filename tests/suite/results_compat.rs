//! Results documents written before psbench recorded each variant's server build still load,
//! report and compare: the build is absent, the performance_schema state as it was. Two
//! documents from before the change are checked in: a MariaDB study (tests/data/report-study)
//! and a PostgreSQL one (tests/data/pg-study-before-build, pg-stat-overhead in cost mode,
//! written 2026-11-26 by psbench at 4c142ac), whose variants carry the empty
//! performance_schema state psbench then recorded for PostgreSQL.

use psbench::results::StudyResults;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn documents_from_before_the_build_identity_load_and_report() {
    for (name, has_pfs) in [("report-study", true), ("pg-study-before-build", false)] {
        let r = StudyResults::load(&fixture(name)).unwrap();
        assert!(!r.variants.is_empty(), "{name}");
        for (v, p) in &r.variants {
            assert!(p.build.is_none(), "{name} {v}");
            let pfs = p.pfs.as_ref().expect("the state as recorded then");
            assert_eq!(
                pfs.enabled,
                has_pfs && !v.starts_with("ps_off"),
                "{name} {v}"
            );
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(fixture(name).join("results.json"), dir.join("results.json")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_psbench"))
            .arg("report")
            .arg(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
        assert!(summary.contains("Servers"), "{name}");
    }
}

#[test]
fn a_document_with_builds_and_no_performance_schema_reads_back_the_same() {
    let mut r = StudyResults::load(&fixture("pg-study-before-build")).unwrap();
    for p in r.variants.values_mut() {
        p.pfs = None;
        p.build = Some(psbench::results::ServerBuild {
            family: psbench::results::Family::Postgres,
            flavour: psbench::results::Flavour::Postgres,
            version: p.server_version.clone(),
            origin: psbench::results::Origin::System {
                package: Some("postgresql-15 15.18-0+deb12u1".into()),
            },
            build_flags: None,
            binary: p.server_binary.clone(),
            sha256: p.server_sha256.clone(),
        });
    }
    let tmp = tempfile::tempdir().unwrap();
    r.save(tmp.path()).unwrap();
    let text = std::fs::read_to_string(tmp.path().join("results.json")).unwrap();
    assert!(
        !text.contains("\"pfs\""),
        "no empty performance_schema state is written"
    );
    let back = StudyResults::load(tmp.path()).unwrap();
    for (v, p) in &back.variants {
        assert_eq!(p.build, r.variants[v].build, "{v}");
        assert!(p.pfs.is_none());
    }
}
