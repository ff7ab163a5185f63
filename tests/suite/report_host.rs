//! The report's host section, wake-up finding and saturation marks, on the checked-in study
//! (tests/data/report-study) with a host probe, placements and flags set to known values.

use psbench::report::findings::findings;
use psbench::report::{render, Format, Subject};
use psbench::results::{CpuList, Flag, HostProbe, Placement, StudyResults, Wakeup};
use std::path::Path;

fn fixture() -> StudyResults {
    StudyResults::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-study"))
        .expect("the checked-in results document loads")
}

/// The fixture with ps_off at 1,000 transactions/s per thread (a 1-thread transaction takes
/// 1,000 µs), default at `factor` of it, no flags, and a probe whose cross-CPU wake-up round
/// trip takes `rtt_us`.
fn probed(rtt_us: f64, factor: f64) -> StudyResults {
    let mut r = fixture();
    for c in &mut r.cells {
        let wobble = [1.005, 1.0 / 1.005, 1.0][c.key.round as usize % 3];
        let level = 1000.0 * c.key.threads as f64 * wobble;
        c.ok = true;
        c.attempts = 1;
        c.flags.clear();
        c.tps = if c.key.variant == "default" {
            level * factor
        } else {
            level
        };
    }
    r.host_probes = vec![HostProbe {
        host: "vm1".into(),
        cpus_allowed: CpuList::parse("0-1").unwrap(),
        wakeup: Some(Wakeup {
            cross_cpu_us: Some(rtt_us),
            cross_cpus: Some([0, 1]),
            same_cpu_us: 6.5,
            same_cpu: 0,
            round_trips: 2000,
        }),
        governor: "not exposed".into(),
        steal_s: 0.5,
        cpu_time_s: 100.0,
    }];
    r
}

#[test]
fn a_wake_up_beyond_a_quarter_of_a_one_thread_transaction_is_a_finding() {
    let slow = findings(&Subject::study(probed(300.0, 1.0), "vm"));
    let line = slow
        .iter()
        .find(|l| l.starts_with("A wake-up round trip between two CPUs takes 300 µs on this host"))
        .unwrap_or_else(|| panic!("{slow:#?}"));
    assert!(
        line.contains("point_select: 1000 µs at 1,000/s")
            && line.ends_with(
                "1-thread throughput on this host measures its wake-ups, not the server."
            ),
        "{line}"
    );
    // 200 µs is a fifth of the transaction: no such sentence.
    let fast = findings(&Subject::study(probed(200.0, 1.0), "vm"));
    assert!(fast.iter().all(|l| !l.contains("wake-up")), "{fast:#?}");
}

#[test]
fn the_host_table_shows_the_probe_the_aa_spread_and_the_placement() {
    let mut r = probed(40.0, 1.0);
    r.variants.get_mut("default").unwrap().placement = Some(Placement {
        server: vec![CpuList::parse("0").unwrap()],
        server_threads: 31,
        client: CpuList::parse("1").unwrap(),
    });
    let md = render(&Subject::study(r.clone(), "vm"), Format::Md).unwrap();
    let host = &md[md.find("### Host").expect("a Host table")..md.find("### Validity").unwrap()];
    for row in [
        "| CPUs psbench may use | 0,1 (2) |",
        "| wake-up round trip, two CPUs (0 and 1) | 40.0 µs (median of 2,000) |",
        "| wake-up round trip, one CPU (0) | 6.5 µs (median of 2,000) |",
        "| CPU time stolen by the hypervisor | 0.5% of 100 CPU-seconds |",
        "| CPU frequency governor | not exposed |",
        "| placement of default, read back | server CPUs 0 (all 31 threads), client CPUs 1 |",
    ] {
        assert!(host.contains(row), "{row} not in\n{host}");
    }
    // ps_off's rounds at 1,000 × (1.005, 1/1.005, 1): sd of their logs.
    let logs = [1.005f64.ln(), -(1.005f64.ln()), 0.0];
    let sd = (logs.iter().map(|l| l * l).sum::<f64>() / 2.0).sqrt();
    let aa = format!(
        "| A/A spread of ps_off, point_select | 1 thr {:.1}%, 2 thr {:.1}% |",
        sd * 100.0,
        sd * 100.0
    );
    assert!(host.contains(&aa), "{aa} not in\n{host}");
    let html = render(&Subject::study(r, "vm"), Format::Html).unwrap();
    assert!(html.contains("<h3 id=\"host\">Host</h3>") && html.contains("href=\"#host\""));
    // A document from before the probe has no Host table.
    let old = render(&Subject::study(fixture(), "old"), Format::Md).unwrap();
    assert!(!old.contains("### Host"));
}

#[test]
fn saturated_cells_are_listed_in_validity_and_named_where_a_change_is_called() {
    let mut r = probed(5.0, 0.85);
    for c in r.cells.iter_mut().filter(|c| c.key.threads == 2) {
        c.flags.push(Flag::HostSaturated);
    }
    let s = Subject::study(r, "saturated");
    let f = findings(&s);
    let called = |t: &str| {
        f.iter()
            .find(|l| l.starts_with("point_select: default is 15.0% slower") && l.contains(t))
            .unwrap_or_else(|| panic!("{t}: {f:#?}"))
            .clone()
    };
    // Marked where saturated, and said once, under the lines.
    assert!(called("at 2 threads").ends_with(" †."), "{f:#?}");
    assert!(!called("at 1 thread").contains('†'), "{f:#?}");
    let caveats: Vec<&String> = f.iter().filter(|l| l.starts_with('†')).collect();
    assert_eq!(caveats.len(), 1, "{f:#?}");
    assert!(
        caveats[0].contains("server and client shared every CPU"),
        "{f:#?}"
    );
    let at = |l: &String| f.iter().position(|x| x == l).unwrap();
    assert!(
        f.iter()
            .filter(|l| l.ends_with(" †."))
            .all(|l| at(l) < at(caveats[0])),
        "{f:#?}"
    );
    let md = render(&s, Format::Md).unwrap();
    let validity = &md[md.find("### Validity").unwrap()..];
    assert!(!validity.contains("Every round ran clean"), "{validity}");
    assert!(
        validity.contains("| point_select | 2 | ps_off | 3/3 | 0 | host-saturated ×3 |"),
        "{validity}"
    );
    assert!(
        validity.contains("\nhost-saturated: the CPUs psbench may use were busy"),
        "{validity}"
    );
    // The cells behind the relative table carry the validity mark.
    assert!(md.contains("⚑"));
}
