#!/usr/bin/env python3
"""psbench's script runner side by side with the clients users already trust, on one
sandbox each, alternating A B A B so that drift hits both alike; the client's own CPU per
transaction (user + system, from getrusage of the child), medians and ratios:

  PostgreSQL 15: `psbench bench script tpcb.sql` against Debian's `pgbench -f tpcb.sql`,
  the same TPC-B-like script, scale 1, 1 client; goal: psbench/pgbench <= 1.0.
  MariaDB: `psbench bench script point_select.sql` (sysbench's point select written in
  pgbench's language) against `sysbench oltp_point_select`; goal: psbench/sysbench <= 0.8.
  And, for scale, the same script against psbench's own built-in point select.

    python3 bench/script_client.py [--rounds 3] [--time 8] [--threads 1]
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.path.join(ROOT, "target", "release", "psbench")

TPCB = r"""\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
"""

POINT_SELECT = r"""\set id random(1, 10000)
SELECT c FROM sbtest1 WHERE id = :id;
"""


def run(cmd, env=None, pattern=r"transactions:\s+(\d+)"):
    """Run a client to completion: its transactions and CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit(f"client failed: {' '.join(cmd)}\n{out.stdout}\n{out.stderr}")
    m = re.search(pattern, out.stdout)
    if not m:
        sys.exit(f"no transaction count in the output of {' '.join(cmd)}:\n{out.stdout}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(m.group(1)), cpu


def sandbox(home, name, engine):
    env = dict(os.environ, PSBENCH_HOME=home)
    subprocess.run([PSBENCH, "sandbox", "start", "--name", name, "--engine", engine],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    state = json.load(open(os.path.join(home, f"sandboxes/{name}/sandbox.json")))
    return env, state


def compare(label, a_cmd, b_cmd, b_pattern, rounds, goal, env_a=None, env_b=None):
    res = {"psbench": [], "other": []}
    for r in range(rounds):
        order = ("psbench", "other") if r % 2 == 0 else ("other", "psbench")
        for c in order:
            if c == "psbench":
                n, cpu = run(a_cmd, env_a)
            else:
                n, cpu = run(b_cmd, env_b, b_pattern)
            res[c].append((cpu * 1e6 / n, n))
    med = {c: statistics.median(x[0] for x in res[c]) for c in res}
    ratio = med["psbench"] / med["other"]
    if goal is None:
        print(f"| {label} | {med['psbench']:.1f} | {med['other']:.1f} | {ratio:.3f} | (for scale) |")
        return True
    verdict = "meets" if ratio <= goal else "misses"
    print(f"| {label} | {med['psbench']:.1f} | {med['other']:.1f} | {ratio:.3f} | <= {goal} ({verdict}) |")
    return ratio <= goal


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--time", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    home = tempfile.mkdtemp(prefix="psb-script-bench-")
    os.chmod(home, 0o711)  # run as root, the servers' account must reach their sandboxes
    files = tempfile.mkdtemp(prefix="psb-script-files-")
    tpcb, point = os.path.join(files, "tpcb.sql"), os.path.join(files, "point_select.sql")
    open(tpcb, "w").write(TPCB)
    open(point, "w").write(POINT_SELECT)
    ok = True
    try:
        print(f"client CPU per transaction (us), medians of {args.rounds} alternating runs "
              f"of {args.time} s, {args.threads} thread(s)")
        print("| script | psbench | the other client | ratio | goal |")
        print("|---|---:|---:|---:|---|")
        # PostgreSQL: pgbench's own tables at scale 1, loaded by pgbench.
        env, st = sandbox(home, "pg", "postgres")
        # The sandbox's pgpass line, host:port:db:user:password.
        pgpass = open(os.path.join(home, "sandboxes/pg/pgpass")).read()
        pw = [l for l in pgpass.splitlines() if not l.startswith("#")][0].rsplit(":", 1)[1]
        penv = dict(os.environ, PGPASSWORD=pw or "")
        conn = ["-h", "127.0.0.1", "-p", str(st["port"]), "-U", st.get("superuser", "postgres")]
        subprocess.run(["pgbench", *conn, "-i", "-q", "-s", "1", "postgres"], env=penv,
                       check=True, capture_output=True)
        ps_conn = ["--db-driver=pgsql", "--pgsql-host=127.0.0.1", f"--pgsql-port={st['port']}",
                   f"--pgsql-user={st.get('superuser', 'postgres')}", "--pgsql-db=postgres"]
        ok &= compare("TPC-B-like on PostgreSQL 15 (pgbench -f)",
                      [PSBENCH, "bench", "script", tpcb, f"--threads={args.threads}",
                       f"--time={args.time}", *ps_conn],
                      ["pgbench", *conn, "-n", "-f", tpcb, "-c", str(args.threads),
                       "-j", str(args.threads), "-T", str(args.time), "postgres"],
                      r"number of transactions actually processed:\s+(\d+)", args.rounds, 1.0,
                      dict(penv, PSBENCH_PGSQL_PASSWORD=pw or ""), penv)
        # MariaDB: sysbench's table, loaded by sysbench.
        env, st = sandbox(home, "my", "mysql")
        sock = st["socket"]
        subprocess.run(["mariadb", "--no-defaults", "-uroot", "-S", sock, "-e",
                        "CREATE DATABASE IF NOT EXISTS sbtest"], check=True)
        common = ["--mysql-user=root", "--mysql-db=sbtest", f"--mysql-socket={sock}"]
        subprocess.run(["sysbench", "oltp_point_select", "--db-driver=mysql", *common,
                        "--tables=1", "--table-size=10000", "prepare"], check=True,
                       stdout=subprocess.DEVNULL)
        ok &= compare("point select on MariaDB (sysbench oltp_point_select)",
                      [PSBENCH, "bench", "script", point, "-M", "prepared",
                       f"--threads={args.threads}", f"--time={args.time}", *common],
                      ["sysbench", "oltp_point_select", "--db-driver=mysql", *common,
                       "--tables=1", "--table-size=10000", "--rand-type=uniform",
                       f"--threads={args.threads}", f"--time={args.time}", "run"],
                      r"transactions:\s+(\d+)", args.rounds, 0.8)
        # For scale: the interpreter's own share, against psbench's built-in point select,
        # which draws the same uniform ids and sends the same prepared statement.
        compare("point select on MariaDB (psbench's built-in oltp_point_select)",
                [PSBENCH, "bench", "script", point, "-M", "prepared",
                 f"--threads={args.threads}", f"--time={args.time}", *common],
                [PSBENCH, "bench", "oltp_point_select", *common, "--tables=1",
                 "--table-size=10000", "--rand-type=uniform", f"--threads={args.threads}",
                 f"--time={args.time}", "run"],
                r"transactions:\s+(\d+)", args.rounds, None)
    finally:
        for name in ("pg", "my"):
            subprocess.run([PSBENCH, "sandbox", "stop", name],
                           env=dict(os.environ, PSBENCH_HOME=home),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", home, files])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
