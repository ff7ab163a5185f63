#!/usr/bin/env python3
"""psbench vs sysbench 1.0.20, side by side on one sandbox: queries per second, the client's
own CPU and context switches per query, and the server's bytes received and sent per
transaction, for oltp_point_select and oltp_read_only at several thread counts, over TCP and
over the unix socket. Runs alternate A B A B so that drift hits both alike. CPU is split
into user time (the client's own code) and system time (the kernel's: mostly the sleep and
wake-up of each round trip, which any blocking client pays). Prints medians,
psbench/sysbench ratios and, for each, its goal:

  client CPU per query at 2 threads <= 0.6 x sysbench's; client voluntary context switches
  (sleeps) per query <= 1.0 over TCP and over the socket (involuntary ones, preemptions by
  whatever else runs on the host, are shown apart); QPS at 2 threads >= 1.05 x sysbench's;
  Bytes_received and Bytes_sent per transaction within 2% of sysbench's (like for like: one
  request in flight per connection).

    python3 bench/client_cpu.py [--rounds 3] [--time 8] [--threads 1,2,16]
                                [--workloads oltp_point_select,oltp_read_only]
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


def server_bytes(sock):
    """The server's Bytes_received and Bytes_sent so far (read over the socket)."""
    out = subprocess.run(["mariadb", "--no-defaults", "-uroot", "-S", sock, "-N", "-e",
                          "SHOW GLOBAL STATUS WHERE Variable_name IN ('Bytes_received','Bytes_sent')"],
                         capture_output=True, text=True, check=True).stdout
    vals = dict(line.split("\t") for line in out.strip().splitlines())
    return int(vals["Bytes_received"]), int(vals["Bytes_sent"])


def run_client(cmd, sock):
    """Run a client to completion; return its figures per query and per transaction."""
    bytes_before = server_bytes(sock)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    bytes_after = server_bytes(sock)
    if out.returncode != 0:
        sys.exit(f"client failed: {' '.join(cmd)}\n{out.stdout}\n{out.stderr}")
    q = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec\.\)", out.stdout)
    t = re.search(r"transactions:\s+(\d+)", out.stdout)
    if not (q and t):
        sys.exit(f"no 'queries:'/'transactions:' lines in the output of {cmd[0]}:\n{out.stdout}")
    queries, txns = int(q.group(1)), int(t.group(1))
    user = after.ru_utime - before.ru_utime
    system = after.ru_stime - before.ru_stime
    cpu = user + system
    voluntary = after.ru_nvcsw - before.ru_nvcsw
    involuntary = after.ru_nivcsw - before.ru_nivcsw
    # The monitoring reads above add a few hundred bytes per run: negligible against
    # thousands of transactions, and the same for both clients.
    return {
        "qps": float(q.group(2)),
        "cpu_us_per_query": cpu * 1e6 / queries,
        "user_us_per_query": user * 1e6 / queries,
        "sys_us_per_query": system * 1e6 / queries,
        "cs_per_query": voluntary / queries,
        "ics_per_query": involuntary / queries,
        "received_per_txn": (bytes_after[0] - bytes_before[0]) / txns,
        "sent_per_txn": (bytes_after[1] - bytes_before[1]) / txns,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--time", type=int, default=8)
    ap.add_argument("--threads", default="1,2,16")
    ap.add_argument("--workloads", default="oltp_point_select,oltp_read_only")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    workloads = args.workloads.split(",")
    home = tempfile.mkdtemp(prefix="psb-bench-")
    os.chmod(home, 0o711)  # run as root, the server's account must reach its sandbox
    env = dict(os.environ, PSBENCH_HOME=home)
    subprocess.run([PSBENCH, "sandbox", "start", "--name", "cmp"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    state = json.load(open(os.path.join(home, "sandboxes/cmp/sandbox.json")))
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
        subprocess.run(["sysbench", "oltp_read_only", "--db-driver=mysql",
                        f"--mysql-socket={sock}", *common, "prepare"], check=True,
                       stdout=subprocess.DEVNULL)
        keys = ["qps", "cpu_us_per_query", "user_us_per_query", "sys_us_per_query",
                "cs_per_query", "ics_per_query", "received_per_txn", "sent_per_txn"]
        print(f"{'workload':<18} {'transport':<9} {'thr':>3} {'client':<8} "
              f"{'QPS':>9} {'cpu us/q':>9} {'user':>6} {'sys':>6} {'vcs/q':>6} {'ics/q':>6} "
              f"{'recv B/t':>9} {'sent B/t':>9}")
        rows = []
        for workload in workloads:
            for transport in ("tcp", "socket"):
                conn = ([f"--mysql-host=127.0.0.1", f"--mysql-port={port}",
                         f"--mysql-password={password}"]
                        if transport == "tcp" else [f"--mysql-socket={sock}"])
                for t in threads:
                    res = {"psbench": [], "sysbench": []}
                    for r in range(args.rounds):
                        order = ("psbench", "sysbench") if r % 2 == 0 else ("sysbench", "psbench")
                        for client in order:
                            base = [f"--threads={t}", f"--time={args.time}", *conn, *common]
                            if client == "psbench":
                                cmd = [PSBENCH, "bench", workload, "run", *base]
                            else:
                                cmd = ["sysbench", workload, "--db-driver=mysql", *base, "run"]
                            res[client].append(run_client(cmd, sock))
                    med = {c: {k: statistics.median(x[k] for x in res[c]) for k in keys}
                           for c in res}
                    for c in ("psbench", "sysbench"):
                        m = med[c]
                        print(f"{workload:<18} {transport:<9} {t:>3} {c:<8} {m['qps']:>9.0f} "
                              f"{m['cpu_us_per_query']:>9.2f} {m['user_us_per_query']:>6.2f} "
                              f"{m['sys_us_per_query']:>6.2f} {m['cs_per_query']:>6.2f} "
                              f"{m['ics_per_query']:>6.2f} "
                              f"{m['received_per_txn']:>9.1f} {m['sent_per_txn']:>9.1f}")
                    ratio = {k: med["psbench"][k] / med["sysbench"][k] if med["sysbench"][k] else float("nan")
                             for k in keys}
                    rows.append((workload, transport, t, ratio, med["psbench"]["cs_per_query"]))
        print(f"\npsbench/sysbench, medians of {args.rounds} alternating runs of {args.time} s")
        print("| workload | transport | threads | QPS ratio | CPU/query ratio "
              "| user CPU/query ratio | system CPU/query ratio "
              "| psbench voluntary cs/query (goal <= 1.0) | recv/txn ratio | sent/txn ratio |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for workload, transport, t, r, cs in rows:
            qps_goal = " (goal >= 1.05)" if t == 2 else ""
            cpu_goal = " (goal <= 0.6)" if t == 2 else ""
            print(f"| {workload} | {transport} | {t} | {r['qps']:.3f}{qps_goal} "
                  f"| {r['cpu_us_per_query']:.3f}{cpu_goal} | {r['user_us_per_query']:.3f} "
                  f"| {r['sys_us_per_query']:.3f} | {cs:.2f} "
                  f"| {r['received_per_txn']:.3f} | {r['sent_per_txn']:.3f} |")
    finally:
        subprocess.run([PSBENCH, "sandbox", "stop", "cmp"], env=env, stdout=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", home])


if __name__ == "__main__":
    main()
