//! Scripts in pgbench's language: psbench against Debian's pgbench 15 on one PostgreSQL
//! sandbox. The same script and seed give the same debug() lines for every random function,
//! permute and the hashes, and two scripts weighted 3:1 are chosen alike; the same calls
//! per statement in pg_stat_statements; and PostgreSQL's TPC-B-like transaction written
//! as a script makes the statements psbench's pgbench_tpcb_like makes.

use crate::common;

use common::pg::{calls, PgServer};
use common::{psbench, text};
use std::path::Path;

const SEED: &str = "5150";

fn pgbench(s: &PgServer, args: &[&str]) -> std::process::Output {
    s.tool("pgbench", args)
}

fn bench_script(s: &PgServer, db: &str, args: &[&str]) -> std::process::Output {
    let out = psbench(Path::new("/nonexistent"))
        .args(["bench", "script"])
        .args(args)
        .args([
            "--db-driver=pgsql",
            "--pgsql-host=127.0.0.1",
            &format!("--pgsql-port={}", s.sb.port()),
            "--pgsql-user=postgres",
            &format!("--pgsql-db={db}"),
        ])
        .env("PSBENCH_PGSQL_PASSWORD", s.sb.password())
        .output()
        .unwrap();
    assert!(out.status.success(), "psbench {args:?}: {}", text(&out));
    out
}

/// The debug() lines of a run's standard error, in order.
fn debug_lines(o: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("debug("))
        .map(str::to_string)
        .collect()
}

const RANDOM: &str = r"\set u debug(random(1, 100000))
\set e debug(random_exponential(1, 1000, 2.5))
\set g debug(random_gaussian(1, 1000, 2.5))
\set z debug(random_zipfian(1, 1000, 1.07))
\set z2 debug(random_zipfian(1, 100, 2.5))
\set p debug(permute(:u, 100000))
\set p2 debug(permute(:u, 1000, :e))
\set h debug(hash(:u))
\set m debug(hash_murmur2(:u, 7))
\set f debug(hash_fnv1a(:u))
\set d debug(:default_seed)
\set r debug(:random_seed)
\set x debug(random(-5, 5) * 1.5 + pi())
";

#[test]
fn the_same_seed_draws_what_pgbench_draws() {
    let s = PgServer::start();
    let tmp = common::tempdir().unwrap();
    let rand = tmp.path().join("rand.sql");
    std::fs::write(&rand, RANDOM).unwrap();
    let a = tmp.path().join("a.sql");
    let b = tmp.path().join("b.sql");
    std::fs::write(&a, "\\set s debug(1)\n").unwrap();
    std::fs::write(&b, "\\set s debug(2)\n\\set t debug(random(1, 9))\n").unwrap();
    let (rand, a, b) = (
        rand.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    );
    let seed = format!("--random-seed={SEED}");
    for (what, files) in [
        ("every random function", vec![rand.to_string()]),
        ("two scripts 3:1", vec![format!("{a}@3"), format!("{b}@1")]),
    ] {
        let mut theirs_args: Vec<String> = vec!["-n".into(), "-c1".into(), "-j1".into()];
        theirs_args.extend(["-t".into(), "1000".into(), seed.clone()]);
        for f in &files {
            theirs_args.push("-f".into());
            theirs_args.push(f.clone());
        }
        theirs_args.push("postgres".into());
        let refs: Vec<&str> = theirs_args.iter().map(String::as_str).collect();
        let theirs = debug_lines(&pgbench(&s, &refs));
        let mut ours_args: Vec<String> = files.clone();
        ours_args.extend(["--threads=1", "--time=0", "--events=1000", &seed].map(String::from));
        let refs: Vec<&str> = ours_args.iter().map(String::as_str).collect();
        let ours = debug_lines(&bench_script(&s, "postgres", &refs));
        assert!(
            theirs.len() >= 1000,
            "{what}: {} lines from pgbench",
            theirs.len()
        );
        assert_eq!(ours.len(), theirs.len(), "{what}: line counts");
        for (i, (o, t)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(o, t, "{what}: line {i}");
        }
        eprintln!("{what}: {} debug() lines identical", ours.len());
    }
}

#[test]
fn scripts_make_the_calls_pgbench_makes() {
    let s = PgServer::start();
    s.rows("postgres", "CREATE DATABASE pgref");
    s.rows("postgres", "CREATE DATABASE psb");
    for db in ["pgref", "psb"] {
        pgbench(&s, &["-i", "-q", "-s", "1", db]);
        s.rows(db, "CREATE EXTENSION pg_stat_statements");
    }
    let tmp = common::tempdir().unwrap();
    // PostgreSQL 15's built-in tpcb-like, as pgbench --show-script=tpcb-like prints it.
    let shown = pgbench(&s, &["--show-script=tpcb-like"]);
    let script: String = String::from_utf8_lossy(&shown.stderr)
        .lines()
        .skip_while(|l| !l.starts_with("\\set"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        script.contains("UPDATE pgbench_accounts"),
        "{}",
        text(&shown)
    );
    let file = tmp.path().join("tpcb.sql");
    std::fs::write(&file, &script).unwrap();
    let file = file.to_str().unwrap();
    let skip = ["pg_catalog", "pg_stat_statements"];
    for mode in ["simple", "extended", "prepared"] {
        s.reset("pgref");
        pgbench(
            &s,
            &["-n", "-M", mode, "-c1", "-t", "300", "-f", file, "pgref"],
        );
        let (theirs, _) = s.counts("pgref", &skip);
        s.reset("psb");
        bench_script(
            &s,
            "psb",
            &[file, "-M", mode, "--threads=1", "--time=0", "--events=300"],
        );
        let (mine, _) = s.counts("psb", &skip);
        assert_eq!(
            calls(&mine),
            calls(&theirs),
            "-M {mode}: calls per statement"
        );
        eprintln!("-M {mode}: {:?}", calls(&mine));
    }
    // The script file against psbench's built-in pgbench_tpcb_like: the same statements.
    s.reset("psb");
    bench_script(
        &s,
        "psb",
        &[file, "--threads=1", "--time=0", "--events=300"],
    );
    let (from_file, _) = s.counts("psb", &skip);
    s.reset("psb");
    let out = psbench(Path::new("/nonexistent"))
        .args([
            "bench",
            "pgbench_tpcb_like",
            "run",
            "--threads=1",
            "--time=0",
            "--events=300",
        ])
        .args([
            "--db-driver=pgsql",
            "--pgsql-host=127.0.0.1",
            &format!("--pgsql-port={}", s.sb.port()),
            "--pgsql-user=postgres",
            "--pgsql-db=psb",
        ])
        .env("PSBENCH_PGSQL_PASSWORD", s.sb.password())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let (mut builtin, _) = s.counts("psb", &skip);
    // A built-in script reads the scale from pgbench_branches once, as pgbench does for its
    // own scripts and not for a file (pgbench -f above made no such call either).
    let scale_read = "select count(*) from pgbench_branches";
    assert_eq!(
        builtin.remove(scale_read).map(|c| c.0),
        Some(1),
        "{builtin:?}"
    );
    assert_eq!(
        calls(&from_file),
        calls(&builtin),
        "the script against pgbench_tpcb_like"
    );
}
