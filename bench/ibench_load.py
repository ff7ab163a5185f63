#!/usr/bin/env python3
"""The Insert Benchmark's l.i0 for one client, psbench beside a Python client that loads the
way iibench.py does (MySQLdb, each 100-row INSERT built as SQL text row by row), on one
sandbox, alternating A B A B. Prints each client's rows/s and its own CPU per inserted row
(user+system of the client process), medians and psbench/python ratios.

iibench.py splits statement making and inserting over two processes joined by a queue; the
Python client here does both in one process, so its CPU per row is the same work without the
queue's cost: a lower bound for the original.

    python3 bench/ibench_load.py [--rounds 3] [--rows 300000]
Needs Debian's python3-mysqldb (installed when missing, as root).
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.path.join(ROOT, "target", "release", "psbench")
SYSTEM_PYTHON = "/usr/bin/python3"

# The Python client, run by the system's python3 (where Debian's MySQLdb lives).
PY_CLIENT = r'''
import base64, os, random, sys, time, MySQLdb
port, rows, cnf = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
db = MySQLdb.connect(read_default_file=cnf, host="127.0.0.1", port=port, user="root", db="ib",
                     autocommit=True)
cur = db.cursor()
cur.execute("DROP TABLE IF EXISTS pi1")
cur.execute("""CREATE TABLE pi1 (transactionid BIGINT NOT NULL AUTO_INCREMENT,
  dateandtime DATETIME, cashregisterid INT NOT NULL, customerid INT NOT NULL,
  productid INT NOT NULL, price INT NOT NULL, data VARCHAR(4000),
  PRIMARY KEY (transactionid)) ENGINE=InnoDB""")
buf = base64.b64encode(os.urandom(4 * 1024 * 1024)).decode()
def data():
    n = random.randint(10, 20)
    r = int(n * 0.75 * 50 / 100)
    off = random.randint(0, len(buf) - r - 1)
    return "a" * (n - r) + buf[off:off + r]
start = time.time()
for _ in range((rows + 99) // 100):
    now = time.strftime("%Y-%m-%d %H:%M:%S")
    values = ",".join(
        "('%s',%d,%d,%d,%.2f,'%s')" % (now, random.randrange(1000), random.randrange(100000),
                                       random.randrange(10000), random.randrange(500), data())
        for _ in range(100))
    cur.execute("INSERT INTO pi1 (dateandtime,cashregisterid,customerid,productid,price,data) VALUES " + values)
secs = time.time() - start
print("rows %d seconds %.3f" % ((rows + 99) // 100 * 100, secs))
'''


def timed(cmd):
    """Run to completion; return (stdout, CPU seconds of the client process tree)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stdout}\n{out.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out.stdout, cpu


def psbench_l_i0(port, rows, cnf):
    out, cpu = timed([PSBENCH, "bench", "insert-benchmark", "--steps", "l.i0", "--rows", str(rows),
                      "--mysql-port", str(port), "--mysql-user", "root",
                      "--mysql-password-file", cnf, "--rand-seed", "1"])
    m = re.search(r"^l\.i0: ([\d.]+) inserts/s over ([\d.]+) s", out, re.M)
    if not m:
        sys.exit(f"no l.i0 line in psbench's output:\n{out}")
    # The process's CPU includes connecting and creating the table: a little more than the step's.
    return float(m.group(1)), cpu


def python_l_i0(port, rows, cnf):
    out, cpu = timed([SYSTEM_PYTHON, "-c", PY_CLIENT, str(port), str(rows), cnf])
    m = re.search(r"rows (\d+) seconds ([\d.]+)", out)
    return int(m.group(1)) / float(m.group(2)), cpu


def ensure_mysqldb():
    ok = subprocess.run([SYSTEM_PYTHON, "-c", "import MySQLdb"], capture_output=True).returncode == 0
    if not ok:
        if os.geteuid() != 0:
            sys.exit("python3-mysqldb is missing: apt-get install python3-mysqldb")
        subprocess.run(["apt-get", "install", "-y", "-q", "python3-mysqldb"], check=True,
                       stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rows", type=int, default=300_000)
    a = ap.parse_args()
    ensure_mysqldb()
    home = tempfile.mkdtemp(prefix="ibl", dir="/tmp")
    os.chmod(home, 0o711)  # run as root, the server's account must reach its sandbox
    env = dict(os.environ, PSBENCH_HOME=home)
    cnf = os.path.join(home, "sandboxes", "ibl", "client.cnf")
    start = subprocess.run([PSBENCH, "sandbox", "start", "--name", "ibl"], env=env,
                           capture_output=True, text=True, check=True)
    port = int(re.search(r"port\s+(\d+)", start.stdout + start.stderr).group(1))
    results = {"psbench": [], "python": []}
    try:
        subprocess.run([SYSTEM_PYTHON, "-c",
                        f"import MySQLdb; MySQLdb.connect(read_default_file='{cnf}', host='127.0.0.1', port={port}, user='root')"
                        ".cursor().execute('CREATE DATABASE IF NOT EXISTS ib')"], check=True)
        for r in range(a.rounds):
            order = [("psbench", psbench_l_i0), ("python", python_l_i0)]
            if r % 2:
                order.reverse()
            for name, fn in order:
                rate, cpu = fn(port, a.rows, cnf)
                rows = (a.rows + 99) // 100 * 100
                results[name].append((rate, cpu * 1e6 / rows))
                print(f"round {r + 1} {name:8} {rate:10.0f} rows/s  {cpu * 1e6 / rows:7.2f} us CPU/row",
                      flush=True)
    finally:
        subprocess.run([PSBENCH, "sandbox", "stop", "ibl"], env=env, capture_output=True)
        shutil.rmtree(home, ignore_errors=True)
    med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
           for k, v in results.items()}
    print(f"\nl.i0, 1 client, {a.rows} rows, median of {a.rounds}:")
    for k, (rate, cpu) in med.items():
        print(f"  {k:8} {rate:10.0f} rows/s  {cpu:7.2f} us client CPU per row")
    print(f"  psbench/python: rows/s {med['psbench'][0] / med['python'][0]:.2f}x, "
          f"client CPU per row {med['psbench'][1] / med['python'][1]:.2f}x")


if __name__ == "__main__":
    main()
