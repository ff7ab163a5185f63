//! Cost mode against a real server under callgrind: instructions per transaction repeat.

use psbench::server::{Home, Sandbox, SandboxSpec};
use psbench::study::{cost, dataset};
use psbench::workloads::sysbench::{sysbench_workload, OltpOptions};
use std::time::Duration;

#[test]
fn instructions_per_transaction_repeat_within_half_a_percent() {
    let home = tempfile::tempdir().unwrap();
    let h = Home::new(home.path());
    let opts = OltpOptions {
        table_size: 1000,
        ..OltpOptions::default()
    };
    let data = dataset::prepared(&h, None, &opts, &mut std::io::sink()).unwrap();
    let dumps = home.path().join("cg");
    std::fs::create_dir_all(&dumps).unwrap();
    let mut spec = SandboxSpec::new("cost", h);
    spec.options = cost::valgrind_options();
    spec.wrapper = cost::wrapper(&dumps).unwrap();
    spec.datadir_from = Some(data);
    spec.ready_timeout = Duration::from_secs(180);
    let sb = Sandbox::start(spec).unwrap();
    let w = sysbench_workload("oltp_point_select", &opts).unwrap();
    let a = cost::measure(&sb, w.as_ref(), [1000, 3000], 200, &dumps, 7).unwrap();
    let b = cost::measure(&sb, w.as_ref(), [1000, 3000], 0, &dumps, 7).unwrap();
    eprintln!("Ir/txn: {:.0} and {:.0}", a.ir_per_txn, b.ir_per_txn);
    // A point select costs tens of thousands of instructions (42.7k on 10.11 per the spec).
    assert!(
        a.ir_per_txn > 10_000.0 && a.ir_per_txn < 200_000.0,
        "{}",
        a.ir_per_txn
    );
    let diff = (a.ir_per_txn - b.ir_per_txn).abs() / a.ir_per_txn;
    assert!(diff < 0.005, "{} vs {}", a.ir_per_txn, b.ir_per_txn);
}
