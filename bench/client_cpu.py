#!/usr/bin/env python3
"""psbench vs sysbench 1.0.20, side by side on one sandbox: QPS and the client's own CPU per
query, for oltp_point_select at several thread counts, over TCP and over the unix socket.
Runs alternate A B A B so that drift hits both alike. Prints medians and psbench/sysbench
ratios. Goals (issue 3): client CPU per query <= 0.8 x sysbench's; QPS >= 1.05 x at 2 threads.

    python3 bench/client_cpu.py [--rounds 3] [--time 10] [--threads 1,2,16]
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.path.join(ROOT, "target", "release", "psbench")


def run_client(cmd):
    """Run a client to completion; return (queries, seconds of its CPU, wall QPS)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit(f"client failed: {' '.join(cmd)}\n{out.stdout}\n{out.stderr}")
    m = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec\.\)", out.stdout)
    if not m:
        sys.exit(f"no 'queries:' line in the output of {cmd[0]}:\n{out.stdout}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(m.group(1)), cpu, float(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--time", type=int, default=10)
    ap.add_argument("--threads", default="1,2,16")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    home = tempfile.mkdtemp(prefix="psb-bench-")
    os.chmod(home, 0o711)  # run as root, the server's account must reach its sandbox
    env = dict(os.environ, PSBENCH_HOME=home)
    subprocess.run([PSBENCH, "sandbox", "start", "--name", "cmp"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    state = __import__("json").load(open(os.path.join(home, "sandboxes/cmp/sandbox.json")))
    port, sock = str(state["port"]), state["socket"]
    try:
        # root needs the sandbox's password over TCP only (the socket is private to its owner);
        # sysbench reads no defaults file, so it goes on the command line.
        cnf = open(os.path.join(home, "sandboxes/cmp/client.cnf")).read()
        password = re.search(r"^password=(.*)$", cnf, re.M).group(1)
        common = ["--mysql-user=root", "--mysql-db=sbtest",
                  "--tables=1", "--table-size=10000", "--rand-type=uniform"]
        subprocess.run(["mariadb", "--no-defaults", "-uroot", "-S", sock, "-e",
                        "CREATE DATABASE IF NOT EXISTS sbtest"], check=True)
        subprocess.run(["sysbench", "oltp_point_select", "--db-driver=mysql",
                        f"--mysql-socket={sock}", *common, "prepare"], check=True,
                       stdout=subprocess.DEVNULL)
        print(f"{'transport':<9} {'thr':>3} {'client':<8} {'QPS':>9} {'cpu us/q':>9}")
        rows = []
        for transport in ("tcp", "socket"):
            conn = ([f"--mysql-host=127.0.0.1", f"--mysql-port={port}", f"--mysql-password={password}"]
                    if transport == "tcp" else [f"--mysql-socket={sock}"])
            for t in threads:
                res = {"psbench": [], "sysbench": []}
                for r in range(args.rounds):
                    order = ("psbench", "sysbench") if r % 2 == 0 else ("sysbench", "psbench")
                    for client in order:
                        base = [f"--threads={t}", f"--time={args.time}", *conn, *common]
                        if client == "psbench":
                            cmd = [PSBENCH, "bench", "oltp_point_select", "run", *base]
                        else:
                            cmd = ["sysbench", "oltp_point_select", "--db-driver=mysql", *base, "run"]
                        q, cpu, qps = run_client(cmd)
                        res[client].append((qps, cpu * 1e6 / q))
                for client in ("psbench", "sysbench"):
                    qps = statistics.median(x[0] for x in res[client])
                    us = statistics.median(x[1] for x in res[client])
                    print(f"{transport:<9} {t:>3} {client:<8} {qps:>9.0f} {us:>9.2f}")
                p, s = res["psbench"], res["sysbench"]
                qr = statistics.median(x[0] for x in p) / statistics.median(x[0] for x in s)
                cr = statistics.median(x[1] for x in p) / statistics.median(x[1] for x in s)
                rows.append((transport, t, qr, cr))
                print(f"{transport:<9} {t:>3} ratio    QPS {qr:.3f}  cpu/q {cr:.3f}")
        print("\npsbench/sysbench (medians of", args.rounds, "alternating runs)")
        print("| transport | threads | QPS ratio | client CPU/query ratio |")
        print("|---|---:|---:|---:|")
        for transport, t, qr, cr in rows:
            print(f"| {transport} | {t} | {qr:.3f} | {cr:.3f} |")
    finally:
        subprocess.run([PSBENCH, "sandbox", "stop", "cmp"], env=env, stdout=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", home])


if __name__ == "__main__":
    main()
