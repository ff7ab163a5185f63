//! The published studies' own settings on MySQL 5.7.22 and 8.0.15: the OLTP RW study's SQL
//! as written and the overhead study's one instrument set, each verified and read back per
//! class beside the catalogue's scenario of the same name.

use crate::common;

use common::require::cached_release;
use psbench::engines::mysql::published_scenarios::NAMES;
use psbench::engines::mysql::scenarios::{scenario, PfsFlavour};
use psbench::probes::InstrumentClass;
use psbench::server::{Home, SandboxSpec};

const RELEASES: [(&str, PfsFlavour); 2] = [
    ("mysql-5.7.22", PfsFlavour::MySql57),
    ("mysql-8.0.15", PfsFlavour::MySql80),
];

/// The catalogue's scenario each published setting stands beside.
fn catalogue_of(name: &str) -> &str {
    match name {
        "every_instrument_all_consumers" => "all_enabled",
        "every_instrument_global_only" => "global_only",
        "every_instrument_no_consumer" => "consumers_off",
        n => n.strip_prefix("sql_").unwrap(),
    }
}

fn class<'a>(classes: &'a [InstrumentClass], name: &str) -> &'a InstrumentClass {
    classes
        .iter()
        .find(|c| c.class == name)
        .unwrap_or_else(|| panic!("no class {name} in {classes:?}"))
}

#[test]
fn the_published_settings_take_effect_and_read_back_per_class_on_mysql_5_7_and_8_0() {
    for (release, on) in RELEASES {
        let Some(basedir) = cached_release(release) else {
            continue;
        };
        let tmp = common::tempdir().unwrap();
        let home = Home::new(tmp.path());
        let mut read = Vec::new();
        for published in NAMES {
            for name in [*published, catalogue_of(published)] {
                let sc = scenario(name).unwrap();
                let mut spec = SandboxSpec::new(name, home.clone());
                spec.basedir = Some(basedir.clone());
                spec.options = sc.options();
                let sb = psbench::engines::start(spec).unwrap_or_else(|e| panic!("{e:#}"));
                let mut c = sb.admin_endpoint().connect().unwrap();
                sc.apply_sql(&mut c).unwrap();
                let state = sc
                    .verify(&mut c, on)
                    .unwrap_or_else(|e| panic!("{release} {name}: {e:#}"));
                let line: Vec<String> = state
                    .classes
                    .iter()
                    .filter(|c| c.enabled > 0)
                    .map(|c| format!("{} {}/{}/{}", c.class, c.enabled, c.timed, c.instruments))
                    .collect();
                eprintln!(
                    "{release} {name}: consumers {}; enabled/timed/of: {}",
                    state.consumers_on.len(),
                    line.join(", ")
                );
                read.push((name.to_string(), state));
            }
        }
        let get = |n: &str| &read.iter().find(|r| r.0 == n).unwrap().1;
        // The study's SQL sets ENABLED only: its stages and mutexes stay untimed, where the
        // catalogue's startup options time every instrument they enable.
        for cls in ["stage", "wait/synch/mutex"] {
            let setting = if cls == "stage" {
                "stages_only"
            } else {
                "waits_only"
            };
            let sql = class(&get(&format!("sql_{setting}")).classes, cls);
            let own = class(&get(setting).classes, cls);
            assert_eq!(sql.enabled, sql.instruments, "{release} {cls}: {sql:?}");
            assert!(sql.timed < sql.enabled, "{release} {cls}: {sql:?}");
            assert_eq!(own.timed, own.enabled, "{release} {cls}: {own:?}");
        }
        // Consumers LIKE 'events_statements%': no digest, one fewer than the catalogue's.
        assert_eq!(
            get("sql_statements_only").consumers_on.len() + 1,
            get("statements_only").consumers_on.len(),
            "{release}"
        );
        // The overhead study's three settings share one instrument set; the catalogue's
        // consumers_off keeps the server's defaults instead.
        let every: Vec<u64> = NAMES
            .iter()
            .filter(|n| n.starts_with("every_instrument_"))
            .map(|n| get(n).instruments_enabled)
            .collect();
        assert!(every.iter().all(|e| *e == every[0]), "{release}: {every:?}");
        assert!(
            get("consumers_off").instruments_enabled < every[0],
            "{release}"
        );
    }
}

/// The OLTP RW study, cut to seconds, runs its SQL on 8.0.15: the report shows what each
/// server's instruments were, per class, and results.json keeps it.
#[test]
fn the_oltp_rw_study_runs_its_own_sql_and_the_report_shows_the_classes() {
    if cached_release("mysql-8.0.15").is_none() {
        return;
    }
    let study = common::tiny_study(
        "mysql-pfs-oltp-rw",
        &["all_disabled", "waits_only"],
        "table_size = 1000",
        None,
    );
    let tmp = common::tempdir().unwrap();
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, &study).unwrap();
    let out = tmp.path().join("out");
    let o = common::psbench(&tmp.path().join("home"))
        .args([
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::text(&o));
    let r = common::results(&out);
    let classes = r["variants"]["waits_only"]["pfs"]["classes"]
        .as_array()
        .unwrap();
    let mutex = classes
        .iter()
        .find(|c| c["class"] == "wait/synch/mutex")
        .unwrap();
    assert!(mutex["enabled"].as_u64().unwrap() > 100, "{mutex}");
    assert_eq!(mutex["timed"], 0, "{mutex}");
    let report = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let table = report
        .split("performance_schema instruments per class")
        .nth(1)
        .unwrap_or_else(|| panic!("no classes table in {report}"));
    let row = table
        .lines()
        .find(|l| l.starts_with("| wait/synch/mutex"))
        .unwrap();
    assert!(
        row.contains(&format!("{} / 0 of", mutex["enabled"])),
        "{row}"
    );
}
