#!/usr/bin/env python3
"""psbench's replay side by side with pgreplay (Debian's 1.2.0) on one PostgreSQL log and
one server: a `log_statement = 'all'` log of pgbench's simple-update run (`-N`, 2 clients), each
replay on the data as pg_dump took it when the capture began, alternating A B A B so that
drift hits both alike. Per pace: statements per second (the capture's statements over the
replay's wall time) and the client's CPU per statement (user + system, getrusage of the
child), medians and ratios psbench / pgreplay.

  speed 10: `psbench bench replay LOG --speed 10` against `pgreplay -s 10 LOG`;
  fast:     `psbench bench replay LOG --pace fast` against `pgreplay -j -s 1000000 LOG`
            (pgreplay has no pace of its own that ignores the recorded gaps).

    python3 bench/replay_pgreplay.py [--rounds 3] [--time 10]

The capture is of `-N` (no updates of the one branch and ten tellers of scale 1): on the
TPC-B-like script, whose every transaction updates the same branch row, pgreplay at speed 10
waited on a lock its own replay order made and fell minutes behind schedule (2026-12-07), so
each run here is stopped after --limit seconds and said not to have finished.

Needs pgreplay (apt-get install pgreplay) and a release build (cargo build --release).
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.path.join(ROOT, "target", "release", "psbench")


def timed(cmd, env, limit):
    """Run a client to completion: wall seconds and CPU seconds (None when it did not finish
    within `limit` seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit(f"client failed: {' '.join(cmd)}\n{out.stdout}\n{out.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


class Server:
    def __init__(self, home):
        self.env = dict(os.environ, PSBENCH_HOME=home)
        subprocess.run([PSBENCH, "sandbox", "start", "--name", "pg", "--engine", "postgres"],
                       env=self.env, check=True, stdout=subprocess.DEVNULL)
        self.dir = os.path.join(home, "sandboxes/pg")
        self.state = json.load(open(os.path.join(self.dir, "sandbox.json")))
        pgpass = open(os.path.join(self.dir, "pgpass")).read()
        line = [l for l in pgpass.splitlines() if not l.startswith("#")][0]
        self.password = line.rsplit(":", 1)[1]
        self.user = self.state.get("superuser", "postgres")
        self.penv = dict(os.environ, PGPASSWORD=self.password)
        self.conn = ["-h", "127.0.0.1", "-p", str(self.state["port"]), "-U", self.user]

    def psql(self, db, sql):
        subprocess.run(["psql", *self.conn, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql, db],
                       env=self.penv, check=True, stdout=subprocess.DEVNULL)

    def log_path(self):
        for key in ("error_log", "log"):
            if key in self.state:
                return self.state[key]
        return os.path.join(self.dir, "error.log")

    def restore(self, dump):
        self.psql("postgres", "DROP DATABASE IF EXISTS bench")
        self.psql("postgres", "CREATE DATABASE bench")
        subprocess.run(["psql", *self.conn, "-q", "-v", "ON_ERROR_STOP=1", "-f", dump, "bench"],
                       env=self.penv, check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--time", type=int, default=10, help="seconds of pgbench captured")
    ap.add_argument("--limit", type=int, default=120, help="seconds a replay may take")
    args = ap.parse_args()
    if not shutil.which("pgreplay"):
        sys.exit("pgreplay is not installed: apt-get install pgreplay")
    home = tempfile.mkdtemp(prefix="psb-replay-bench-")
    os.chmod(home, 0o711)  # run as root, the servers' account must reach their sandboxes
    files = tempfile.mkdtemp(prefix="psb-replay-files-")
    os.chmod(files, 0o755)
    try:
        s = Server(home)
        # pgreplay's own requirements of the log: its prefix, connections and disconnections.
        for setting in ("log_line_prefix = '%m|%u|%d|%c|'", "log_connections = on",
                        "log_disconnections = on", "lc_messages = 'C'"):
            s.psql("postgres", f"ALTER SYSTEM SET {setting}")
        s.psql("postgres", "SELECT pg_reload_conf()")
        s.psql("postgres", "CREATE DATABASE bench")
        subprocess.run(["pgbench", *s.conn, "-i", "-q", "-s", "1", "bench"], env=s.penv,
                       check=True, capture_output=True)
        dump = os.path.join(files, "bench.sql")
        subprocess.run(["pg_dump", *s.conn, "-f", dump, "bench"], env=s.penv, check=True)
        os.chmod(dump, 0o644)
        s.psql("postgres", "ALTER DATABASE bench SET log_statement = 'all'")
        log = s.log_path()
        start = os.path.getsize(log)
        subprocess.run(["pgbench", *s.conn, "-N", "-c", "2", "-j", "2", "-T", str(args.time), "bench"],
                       env=s.penv, check=True, capture_output=True)
        s.psql("postgres", "ALTER DATABASE bench RESET log_statement")
        time.sleep(1)
        capture = os.path.join(files, "capture.log")
        with open(log, "rb") as f:
            f.seek(start)
            open(capture, "wb").write(f.read())
        os.chmod(capture, 0o644)
        ps_conn = ["--db-driver=pgsql", "--pgsql-host=127.0.0.1",
                   f"--pgsql-port={s.state['port']}", f"--pgsql-user={s.user}",
                   "--pgsql-db=bench"]
        psenv = dict(s.penv, PSBENCH_PGSQL_PASSWORD=s.password)
        rep = ["pgreplay", "-h", "127.0.0.1", "-p", str(s.state["port"]), "-W", s.password]
        paces = {
            "speed 10": ([PSBENCH, "bench", "replay", capture, "--speed", "10", *ps_conn],
                         [*rep, "-s", "10", capture]),
            "fast": ([PSBENCH, "bench", "replay", capture, "--pace", "fast", *ps_conn],
                     [*rep, "-j", "-s", "1000000", capture]),
        }
        statements = None
        print(f"a {args.time} s capture of pgbench -N (2 clients, simple update) on PostgreSQL 15; "
              f"medians of {args.rounds} alternating runs, each on a fresh restore of the dump")
        print("| pace | client | statements/s | client CPU µs per statement |")
        print("|---|---|---:|---:|")
        ratios = []
        for pace, (ours, theirs) in paces.items():
            res = {"psbench": [], "pgreplay": []}
            for r in range(args.rounds):
                order = ("psbench", "pgreplay") if r % 2 == 0 else ("pgreplay", "psbench")
                for c in order:
                    s.restore(dump)
                    got = timed(ours if c == "psbench" else theirs,
                                psenv if c == "psbench" else s.penv, args.limit)
                    if got is None:
                        print(f"| {pace} | {c} | did not finish within {args.limit} s | |")
                        continue
                    wall, cpu, out = got
                    if c == "psbench" and statements is None:
                        # The capture's statement count, as psbench read it.
                        statements = int(out.split(" statement(s),")[0].rsplit(", ", 1)[1])
                    res[c].append((wall, cpu))
            if not res["psbench"] or not res["pgreplay"]:
                continue
            for c in ("psbench", "pgreplay"):
                rate = statistics.median(statements / w for w, _ in res[c])
                cpu_us = statistics.median(cpu * 1e6 / statements for _, cpu in res[c])
                res[c] = (rate, cpu_us)
                print(f"| {pace} | {c} | {rate:.0f} | {cpu_us:.1f} |")
            ratios.append((pace, res["psbench"][0] / res["pgreplay"][0],
                           res["psbench"][1] / res["pgreplay"][1]))
        print(f"\n{statements} statements replayed per run")
        print("| pace | statements/s psbench / pgreplay | client CPU per statement psbench / pgreplay |")
        print("|---|---:|---:|")
        for pace, rate, cpu in ratios:
            print(f"| {pace} | {rate:.2f} | {cpu:.2f} |")
    finally:
        subprocess.run([PSBENCH, "sandbox", "stop", "pg"],
                       env=dict(os.environ, PSBENCH_HOME=home),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", home, files])


if __name__ == "__main__":
    main()
