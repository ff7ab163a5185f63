//! `psbench run STUDY --basedir PATH | VARIANT=PATH`: the variants' server trees from the
//! command line, and its mistakes refused at `--plan` (and before a run writes anything)
//! with one line and exit 2.

use crate::common;

use common::{psbench, text};

fn run(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    psbench(home).arg("run").args(args).output().unwrap()
}

/// Exit 2 and one line saying `words`.
fn refused(o: &std::process::Output, words: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(o));
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(words), "no {words:?} in {err}");
}

#[test]
fn bad_basedirs_are_refused_at_plan_in_one_line() {
    let tmp = common::tempdir().unwrap();
    let home = tmp.path().join("home");
    let plan = |b: &str| run(&home, &["pfs-overhead", "--basedir", b, "--plan"]);
    refused(&plan("/nonexistent"), "does not exist");
    refused(&plan("/tmp"), "is not a server tree");
    refused(&plan("nosuch=/tmp"), "no variant 'nosuch'");
    // A run refuses it too, before its results directory exists.
    let out = tmp.path().join("out");
    let o = run(
        &home,
        &[
            "pfs-overhead",
            "--basedir",
            "/nonexistent",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    refused(&o, "does not exist");
    assert!(
        !out.exists(),
        "a study refused before its first cell left {out:?}"
    );
}

#[test]
fn a_mysql_tree_runs_the_default_study_and_its_mariadb_only_variant_is_named() {
    let Some(tree) = common::require::cached_release("mysql-8.0.15") else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let home = tmp.path().join("home");
    let tree = tree.to_str().unwrap();
    // userstat is MariaDB's: refused, naming the variants that can run.
    let o = run(&home, &["pfs-overhead", "--basedir", tree, "--plan"]);
    refused(&o, "variant 'userstat'");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--variants ps_off,default"));
    let o = run(
        &home,
        &[
            "pfs-overhead",
            "--basedir",
            tree,
            "--variants",
            "ps_off,default",
            "--plan",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let plan = String::from_utf8_lossy(&o.stdout);
    assert!(plan.contains(&format!("MySQL 8.0.15 in {tree}")), "{plan}");
    // One variant only: the other stays on the system's server.
    let o = run(
        &home,
        &[
            "pfs-overhead",
            "--basedir",
            &format!("ps_off={tree}"),
            "--variants",
            "ps_off,default",
            "--plan",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let plan = String::from_utf8_lossy(&o.stdout);
    assert!(plan.contains("servers (2)"), "{plan}");
}
