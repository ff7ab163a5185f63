//! The built-in client sleeps once per query, over TCP and over the unix socket: a whole
//! `psbench bench` run (worker, collector and main thread) against a real sandbox, counted
//! by the run's own client context switches. Every extra sleep is a wake-up taken from the
//! server the client shares the host with.

use crate::common;

use common::sandbox;
use psbench::server::Sandbox;
use std::process::Command;

const QUERIES: u64 = 4000;
/// One sleep per round trip, plus a little for the collector's ticks and the threads'
/// ends. Preemptions on a loaded machine are involuntary and not counted; a reader woken a
/// second time per statement (a collector woken per event, a blocking read on the unix
/// socket that the server's taking in the request wakes too) makes 1.8 and fails this.
const MAX_PER_QUERY: f64 = 1.1;

fn run(args: &[String]) -> serde_json::Value {
    let dir = common::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_psbench"));
    cmd.args(["bench", "oltp_point_select", "run"])
        .args(args)
        .args([
            "--table-size=1000",
            "--threads=1",
            "--time=0",
            &format!("--events={QUERIES}"),
            &format!("--json={}", json.display()),
        ])
        .env_remove("PSBENCH_MYSQL_PASSWORD");
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", common::text(&out));
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

fn transports(sb: &Sandbox) -> [(&'static str, Vec<String>); 2] {
    [
        (
            "unix socket",
            vec![
                format!("--mysql-socket={}", sb.socket().display()),
                "--mysql-user=root".into(),
            ],
        ),
        (
            "TCP",
            vec![
                format!("--mysql-port={}", sb.port()),
                "--mysql-user=root".into(),
                format!(
                    "--mysql-password-file={}",
                    sb.state().client_defaults().display()
                ),
            ],
        ),
    ]
}

#[test]
fn one_sleep_per_query_over_both_transports() {
    let (_tmp, sb) = sandbox("clientcs");
    let prepare = Command::new(env!("CARGO_BIN_EXE_psbench"))
        .args(["bench", "oltp_point_select", "prepare", "--table-size=1000"])
        .args(&transports(&sb)[0].1)
        .output()
        .unwrap();
    assert!(prepare.status.success(), "{}", common::text(&prepare));
    for (transport, args) in transports(&sb) {
        let d = run(&args);
        let queries = d["totals"]["queries"]["total"].as_u64().unwrap();
        assert_eq!(queries, QUERIES, "{transport}");
        let switches = d["client_cpu"]["voluntary_context_switches"]
            .as_u64()
            .unwrap();
        assert!(switches > 0, "{transport}: no context switches counted");
        let per_query = switches as f64 / queries as f64;
        assert!(
            per_query <= MAX_PER_QUERY,
            "over the {transport}: {per_query:.2} voluntary context switches per query, \
             more than {MAX_PER_QUERY}"
        );
    }
}
