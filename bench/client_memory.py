#!/usr/bin/env python3
"""Client memory per connection, psbench beside sysbench 1.0.20 on one sandbox: each client's
peak resident set (the kernel's ru_maxrss of that process) divided by its connections, for
oltp_read_only at 64, 256 and 1,024 connections over the unix socket. Runs alternate A B A B.
Prints every run, then medians and issue 16's goal (psbench <= 1 MiB per connection).

    python3 bench/client_memory.py [--rounds 2] [--time 10] [--threads 64,256,1024]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.path.join(ROOT, "target", "release", "psbench")
MIB = 1024 * 1024


def run(cmd):
    """Run to completion; return (peak RSS in bytes of that process, stdout)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Read the pipes on threads so that the child never blocks on a full pipe, and reap it
    # with wait4, which returns that child's own peak RSS.
    chunks = {"out": b"", "err": b""}

    def drain(name, pipe):
        chunks[name] = pipe.read()
    readers = [threading.Thread(target=drain, args=("out", proc.stdout)),
               threading.Thread(target=drain, args=("err", proc.stderr))]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(proc.pid, 0)
    for r in readers:
        r.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    out = chunks["out"].decode()
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out}\n{chunks['err'].decode()}")
    if not re.search(r"transactions:\s+\d+", out):
        sys.exit(f"no transactions line in the output of {cmd[0]}:\n{out}")
    return usage.ru_maxrss * 1024, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--time", type=int, default=10)
    ap.add_argument("--threads", default="64,256,1024")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    home = tempfile.mkdtemp(prefix="psb-mem-")
    os.chmod(home, 0o711)  # run as root, the server's account must reach its sandbox
    env = dict(os.environ, PSBENCH_HOME=home)
    most = max(threads)
    subprocess.run([PSBENCH, "sandbox", "start", "--name", "mem",
                    "--option", f"max_connections={most + 50}",
                    "--option", f"max_prepared_stmt_count={most * 32}"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    sock = json.load(open(os.path.join(home, "sandboxes/mem/sandbox.json")))["socket"]
    try:
        common = [f"--mysql-socket={sock}", "--mysql-user=root", "--mysql-db=sbtest",
                  "--tables=1", "--table-size=10000", "--rand-type=uniform"]
        subprocess.run(["mariadb", "--no-defaults", "-uroot", "-S", sock, "-e",
                        "CREATE DATABASE IF NOT EXISTS sbtest"], check=True)
        subprocess.run(["sysbench", "oltp_read_only", "--db-driver=mysql", *common, "prepare"],
                       check=True, stdout=subprocess.DEVNULL)
        per_conn = {}
        for t in threads:
            res = {"psbench": [], "sysbench": []}
            for r in range(args.rounds):
                order = ("psbench", "sysbench") if r % 2 == 0 else ("sysbench", "psbench")
                for client in order:
                    base = [f"--threads={t}", f"--time={args.time}", *common]
                    cmd = ([PSBENCH, "bench", "oltp_read_only", "run", *base]
                           if client == "psbench" else
                           ["sysbench", "oltp_read_only", "--db-driver=mysql", *base, "run"])
                    rss, _ = run(cmd)
                    res[client].append(rss)
                    print(f"round {r + 1} {client:8} {t:5} connections  peak RSS "
                          f"{rss / MIB:8.1f} MiB  {rss / MIB / t:6.3f} MiB per connection",
                          flush=True)
            per_conn[t] = {c: statistics.median(v) / MIB / t for c, v in res.items()}
        print(f"\noltp_read_only over the unix socket, {args.time} s, median of {args.rounds}:")
        print("| connections | psbench MiB/connection (goal <= 1) | sysbench MiB/connection |")
        print("|---:|---:|---:|")
        for t in threads:
            p, s = per_conn[t]["psbench"], per_conn[t]["sysbench"]
            print(f"| {t} | {p:.3f}{'' if p <= 1 else ' NOT MET'} | {s:.3f} |")
    finally:
        subprocess.run([PSBENCH, "sandbox", "stop", "mem"], env=env, stdout=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", home])


if __name__ == "__main__":
    main()
