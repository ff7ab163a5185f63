#!/usr/bin/env python3
"""The Insert Benchmark for one client, psbench beside a Python client built the way iibench.py
is (MySQLdb, its default cursor, SQL text built in Python), on one sandbox, alternating A B A B
so that drift hits both alike. Prints per-round lines, medians and psbench/python ratios.

l.i0: each client loads --rows rows in 100-row INSERTs. Reported: rows/s and the client's CPU
per inserted row (user+system of the client process, connecting and creating the table
included). iibench.py splits statement making and inserting over two processes joined by a
queue; the Python client here does both in one process, so its CPU per row is the same work
without the queue's cost: a lower bound for the original.

qr100, qp100 (any qrR/qpR): before each client's turn, psbench loads a fresh table
(--steps l.i0,l.x: --rows rows and the three secondary indexes) and the server gets
--settle-seconds; then the client runs the query steps in a row, each one query worker
beside writers that insert and delete R rows/s in 50-row statements for --query-seconds.
Reported: queries/s and the client's CPU per query, of the query worker only:

- psbench runs the writers in the same process as the querier, so its process CPU (what
  psbench itself prints as "client CPU ... per query") includes them and the collector. The
  script reads each thread's CPU from /proc/PID/task/TID/schedstat (stat when missing) every
  --sample-ms while psbench runs. psbench names its threads: psbench-wN is driver worker N,
  and with one client the roles are w0 inserter, w1 deleter, w2 querier (workloads/ibench/
  workload.rs). Each step starts new threads, so the querier threads in order of appearance
  are the steps' in order. Query CPU = the querier thread's last reading; it misses at most
  one sampling interval of that thread's CPU at its exit. Queries per step come from the
  step's JSON document (--json-dir: insert_benchmark.queries).
- The Python client runs as the original does: a query process and a writer process
  forked by a parent (multiprocessing), a shared low-water mark from the writer. The query
  process's getrusage at its end is its CPU (a forked child starts from zero), connecting
  included as psbench's thread's includes connecting and preparing. Its loop is the
  original's: a query type at random, the statement's text by % formatting, execute,
  fetchall, time it into the response-time buckets, a shared max under its lock, the shared
  count and the done flag every 16 queries, and for point queries SELECT max(transactionid)
  on a second, cached connection every 100 queries. The statements are the original's MySQL
  ones, which psbench sends with the same shapes (prepared, typed parameters): range queries
  with FORCE INDEX on pi1_marketsegment, pi1_registersegment, pi1_pdc, LIMIT 10; point
  queries as 10-key IN lists on the primary key between the low-water mark and the highest
  key. The writers are one process doing both INSERT (text built row by row) and DELETE of
  the oldest rows, on an even schedule as psbench's; they are not measured.

Each client's CPU per query is also split: the part in user mode (the client's own code) is
printed beside the total, whose rest is the kernel's (mostly putting the one querying
thread to sleep and waking it for every answer, which any blocking client pays): for
psbench from the querier thread's utime and stime ticks in /proc, for Python from the
query process's getrusage.

The goal printed beside the query steps' CPU ratio: psbench <= 0.4x python.

    python3 bench/ibench_load.py [--rounds 3] [--rows 300000] [--steps l.i0,qr100,qp100]
                                 [--query-seconds 60] [--settle-seconds 10]
Runs as root on Debian; installs python3-mysqldb when missing.
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.path.join(ROOT, "target", "release", "psbench")
SYSTEM_PYTHON = "/usr/bin/python3"
# One client: the driver numbers threads role by role, so w2 is the querier (w0 inserter,
# w1 deleter).
QUERIER = "psbench-w2"
GOAL = 0.4

# The l.i0 client, run by the system's python3 (where Debian's MySQLdb lives).
PY_LOAD = r'''
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

# One query step the way iibench.py runs it: argv port cnf step seconds.
PY_QUERY = r'''
import base64, math, multiprocessing, os, random, resource, sys, time, timeit, MySQLdb
port, cnf, step, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
point, rate = step[1] == "p", int(step[2:])
T, ROWS_PER_QUERY = "pi1", 10

def connect():
    return MySQLdb.connect(read_default_file=cnf, host="127.0.0.1", port=port, user="root",
                           db="ib", autocommit=True)

# The original's MySQL statements (generate_*_query_mysql_pg with force=True).
def market(min_id, max_id):
    productid = random.randrange(0, 10000)
    force_txt = 'FORCE INDEX (%s_marketsegment)' % T
    return ('SELECT productid, customerid, price FROM %s %s WHERE (productid >= %s) '
            'ORDER BY productid, customerid, price LIMIT %d'
            % (T, force_txt, productid, ROWS_PER_QUERY))

def register(min_id, max_id):
    cashregisterid = random.randrange(0, 1000)
    force_txt = 'FORCE INDEX (%s_registersegment)' % T
    return ('SELECT cashregisterid,customerid,price FROM %s %s WHERE (cashregisterid > %d) '
            'ORDER BY cashregisterid, customerid, price LIMIT %d'
            % (T, force_txt, cashregisterid, ROWS_PER_QUERY))

def pdc(min_id, max_id):
    price = random.randrange(0, 500)
    force_txt = 'FORCE INDEX (%s_pdc)' % T
    return ('SELECT price,dateandtime,customerid FROM %s %s WHERE (price >= %s) '
            'ORDER BY price, dateandtime, customerid LIMIT %d'
            % (T, force_txt, price, ROWS_PER_QUERY))

def pk(min_id, max_id):
    ids = [str(random.randrange(min_id, max_id)) for x in range(ROWS_PER_QUERY)]
    return ('SELECT transactionid, productid, data FROM %s WHERE transactionid in (%s)'
            % (T, ','.join(ids)))

def rthist_finish(rt, start):
    # The original's response-time buckets, per query.
    elapsed = timeit.default_timer() - start
    for i, bound in enumerate((0.000256, 0.001, 0.004, 0.016, 0.064, 0.256, 1, 4, 16)):
        if elapsed <= bound:
            rt[i] += 1
            break
    else:
        rt[9] += 1
    return int(elapsed * 1000000.0)

def query(min_trxid, done, go, shared_max, shared_loops, out):
    db = connect()
    cursor = db.cursor()
    max_conn = connect()  # the original caches one connection for min/max(transactionid)
    def get_max():
        c = max_conn.cursor()
        c.execute('select max(transactionid) from %s' % T)
        v = c.fetchone()[0]
        c.close()
        return v
    generators = [pk] if point else [market, register, pdc]
    rt = [0] * 10
    max_id = get_max() if point else -1
    go.wait()
    start, loops, fetched = time.time(), 0, 0
    while True:
        f = generators[random.randrange(0, len(generators))]
        min_id = min_trxid.value
        ts = timeit.default_timer()
        cursor.execute(f(min_id, max_id))
        fetched += len(cursor.fetchall())
        elapsed = rthist_finish(rt, ts)
        with shared_max.get_lock():
            if elapsed > shared_max.value:
                shared_max.value = elapsed
        loops += 1
        if loops % 16 == 0:
            shared_loops.value = loops
            if done.value == 1:
                break
        if loops % 100 == 0 and point:
            max_id = get_max()
    secs = time.time() - start
    ru = resource.getrusage(resource.RUSAGE_SELF)
    out.put(("query", loops, secs, ru.ru_utime + ru.ru_stime, fetched, ru.ru_utime))

def writer(min_trxid, done, go, out):
    # Not measured: keeps R rows/s inserted and deleted in 50-row statements for the step.
    db = connect()
    cur = db.cursor()
    cur.execute('select min(transactionid) from %s' % T)
    est = cur.fetchone()[0] or 0
    min_trxid.value = est
    buf = base64.b64encode(os.urandom(4 * 1024 * 1024)).decode()
    def row(when):
        n = random.randint(10, 20)
        r = int(n * 0.75 * 50 / 100)
        off = random.randrange(0, len(buf) - r)
        return "('%s',%d,%d,%d,%.2f,'%s')" % (
            when, random.randrange(1000), random.randrange(100000), random.randrange(10000),
            random.randrange(500), "a" * (n - r) + buf[off:off + r])
    per = min(50, rate)
    period = per / rate
    rounds = math.ceil(seconds * rate / per)
    def until(t):
        time.sleep(max(0.0, t - time.time()))
    inserted = deleted = 0
    go.wait()
    start = time.time()
    for k in range(rounds):
        until(start + k * period)
        when = time.strftime('%Y-%m-%d %H:%M:%S')
        cur.execute('insert into %s (dateandtime,cashregisterid,customerid,productid,price,data) '
                    'values %s' % (T, ',\n'.join(row(when) for _ in range(per))))
        inserted += cur.rowcount
        until(start + (k + 0.5) * period)
        cur.execute('DELETE FROM %s WHERE transactionid >= %d ORDER BY transactionid ASC LIMIT %d'
                    % (T, est, per))
        deleted += cur.rowcount
        est += per
        min_trxid.value = est
    until(start + rounds * period)  # the step lasts its length, as psbench's
    done.value = 1
    out.put(("writer", inserted, deleted, time.time() - start))

# fork, as the original on Linux; explicit because newer Pythons default to forkserver.
ctx = multiprocessing.get_context("fork")
min_trxid, done = ctx.Value('l', 0), ctx.Value('i', 0)
shared_max, shared_loops = ctx.Value('l', 0), ctx.Value('l', 0)
go, out = ctx.Barrier(2), ctx.Queue()
procs = [ctx.Process(target=query, args=(min_trxid, done, go, shared_max, shared_loops, out)),
         ctx.Process(target=writer, args=(min_trxid, done, go, out))]
for p in procs:
    p.start()
res = {}
while len(res) < 2 and all(p.exitcode in (None, 0) for p in procs):
    try:
        r = out.get(timeout=1)
        res[r[0]] = r[1:]
    except Exception:
        pass
for p in procs:
    p.join()
if len(res) < 2:
    sys.exit("a query-step process failed")
q, w = res["query"], res["writer"]
print("queries %d seconds %.3f cpu %.6f fetched %d inserted %d deleted %d writer_seconds %.3f"
      " user %.6f" % (q[0], q[1], q[2], q[3], w[0], w[1], w[2], q[4]))
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


def conn_args(s):
    return ["--mysql-port", str(s.port), "--mysql-user", "root", "--mysql-password-file", s.cnf]


def psbench_l_i0(s):
    out, cpu = timed([PSBENCH, "bench", "insert-benchmark", "--steps", "l.i0", "--rows",
                      str(s.rows), "--rand-seed", "1"] + conn_args(s))
    m = re.search(r"^l\.i0: ([\d.]+) inserts/s over ([\d.]+) s", out, re.M)
    if not m:
        sys.exit(f"no l.i0 line in psbench's output:\n{out}")
    # The process's CPU includes connecting and creating the table: a little more than the step's.
    return float(m.group(1)), cpu


def python_l_i0(s):
    out, cpu = timed([SYSTEM_PYTHON, "-c", PY_LOAD, str(s.port), str(s.rows), s.cnf])
    m = re.search(r"rows (\d+) seconds ([\d.]+)", out)
    return int(m.group(1)) / float(m.group(2)), cpu


def load_for_queries(s):
    """A fresh indexed table for one client's query steps, then a pause for the server."""
    timed([PSBENCH, "bench", "insert-benchmark", "--steps", "l.i0,l.x", "--rows", str(s.rows),
           "--rand-seed", "1"] + conn_args(s))
    time.sleep(s.settle_seconds)


def thread_cpu(task):
    """(CPU seconds, user share) of one thread: schedstat's nanoseconds (else stat's
    utime+stime ticks), and the share of stat's ticks spent in user mode."""
    with open(os.path.join(task, "stat")) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    user, system = int(fields[11]), int(fields[12])
    share = user / (user + system) if user + system else 0.0
    try:
        with open(os.path.join(task, "schedstat")) as f:
            return int(f.read().split()[0]) / 1e9, share
    except FileNotFoundError:
        return (user + system) / os.sysconf("SC_CLK_TCK"), share


def psbench_queries(s, steps):
    """Run the query steps in one psbench process; per step (queries/s, query-thread CPU us
    per query, whole-process CPU us per query, background ratio, rows per query, the query
    thread's user share of its CPU)."""
    jdir = tempfile.mkdtemp(dir=s.home)
    log = os.path.join(jdir, "out.txt")
    cmd = [PSBENCH, "bench", "insert-benchmark", "--steps", ",".join(steps), "--rows",
           str(s.rows), "--query-seconds", str(s.query_seconds), "--rand-seed", "1",
           "--json-dir", jdir] + conn_args(s)
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
    cpu, order = {}, []  # querier tid -> last CPU reading; tids in order of appearance
    others = {str(p.pid)}  # threads known not to be queriers: not read again (less sampling)
    tasks = f"/proc/{p.pid}/task"
    while p.poll() is None:
        try:
            tids = os.listdir(tasks)
        except FileNotFoundError:
            break
        for tid in tids:
            if tid in others:
                continue
            task = os.path.join(tasks, tid)
            try:
                if tid not in cpu:
                    with open(os.path.join(task, "comm")) as f:
                        comm = f.read().strip()
                    if comm != QUERIER:
                        # A new thread names itself once it runs: until then it shows the
                        # process's name, so only another name settles it.
                        if comm != "psbench":
                            others.add(tid)
                        continue
                    order.append(tid)
                cpu[tid] = thread_cpu(task)
            except (FileNotFoundError, ProcessLookupError):
                pass  # the thread ended since the listing
        time.sleep(s.sample_ms / 1000)
    with open(log) as f:
        out = f.read()
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out}")
    if len(order) != len(steps):
        sys.exit(f"saw {len(order)} {QUERIER} threads for {len(steps)} query steps: "
                 "is each step longer than --sample-ms?")
    res = {}
    for step, tid in zip(steps, order):
        with open(os.path.join(jdir, f"{step}.json")) as f:
            ib = json.load(f)["insert_benchmark"]
        q = ib["queries"]
        total, user_share = cpu[tid]
        res[step] = (ib["queries_per_s"], total * 1e6 / q, ib["client_cpu_us_per_op"],
                     ib["background"]["ratio"], ib["rows_fetched"] / q, user_share)
    shutil.rmtree(jdir, ignore_errors=True)
    return res


def python_queries(s, steps):
    res = {}
    for step in steps:
        out, _ = timed([SYSTEM_PYTHON, "-c", PY_QUERY, str(s.port), s.cnf, step,
                        str(s.query_seconds)])
        m = re.search(r"queries (\d+) seconds ([\d.]+) cpu ([\d.]+) fetched (\d+) inserted (\d+)"
                      r" deleted (\d+) writer_seconds ([\d.]+) user ([\d.]+)", out)
        if not m:
            sys.exit(f"no result line from the Python {step} client:\n{out}")
        q, secs, cpu = int(m.group(1)), float(m.group(2)), float(m.group(3))
        target = int(step[2:]) * float(m.group(7))
        res[step] = (q / secs, cpu * 1e6 / q, None, int(m.group(5)) / target,
                     int(m.group(4)) / q, float(m.group(8)) / cpu if cpu else 0.0)
    return res


def ensure_mysqldb():
    ok = subprocess.run([SYSTEM_PYTHON, "-c", "import MySQLdb"], capture_output=True).returncode == 0
    if not ok:
        if os.geteuid() != 0:
            sys.exit("python3-mysqldb is missing: apt-get install python3-mysqldb")
        subprocess.run(["apt-get", "install", "-y", "-q", "python3-mysqldb"], check=True,
                       stdout=subprocess.DEVNULL)


def parse_steps(text):
    steps = ["l.i0", "qr100", "qp100"] if text == "all" else text.split(",")
    bad = [x for x in steps if x != "l.i0" and not re.fullmatch(r"q[rp][1-9]\d*", x)]
    if bad:
        sys.exit(f"unknown steps {bad}: l.i0, qrR, qpR (e.g. qr100, qp100) or all")
    return steps


def main():
    ap = argparse.ArgumentParser(description="l.i0, qr100, qp100: psbench beside a Python "
                                             "client built like iibench.py")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rows", type=int, default=300_000,
                    help="rows of l.i0, and of the table the query steps run on")
    ap.add_argument("--steps", default="all", help="l.i0,qr100,qp100 (all) or some of them")
    ap.add_argument("--query-seconds", type=int, default=60, help="length of each query step")
    ap.add_argument("--settle-seconds", type=float, default=10,
                    help="pause between loading and a client's query steps")
    ap.add_argument("--sample-ms", type=float, default=20,
                    help="how often psbench's threads' CPU is read")
    s = ap.parse_args()
    steps = parse_steps(s.steps)
    qsteps = [x for x in steps if x != "l.i0"]
    ensure_mysqldb()
    s.home = tempfile.mkdtemp(prefix="ibl", dir="/tmp")
    os.chmod(s.home, 0o711)  # run as root, the server's account must reach its sandbox
    env = dict(os.environ, PSBENCH_HOME=s.home)
    s.cnf = os.path.join(s.home, "sandboxes", "ibl", "client.cnf")
    load = {"psbench": [], "python": []}
    query = {(c, q): [] for c in load for q in qsteps}
    try:
        start = subprocess.run([PSBENCH, "sandbox", "start", "--name", "ibl"], env=env,
                               capture_output=True, text=True, check=True)
        s.port = int(re.search(r"port\s+(\d+)", start.stdout + start.stderr).group(1))
        subprocess.run([SYSTEM_PYTHON, "-c",
                        f"import MySQLdb; MySQLdb.connect(read_default_file='{s.cnf}', host='127.0.0.1', port={s.port}, user='root')"
                        ".cursor().execute('CREATE DATABASE IF NOT EXISTS ib')"], check=True)
        for r in range(s.rounds):
            order = ["psbench", "python"]
            if r % 2:
                order.reverse()
            if "l.i0" in steps:
                for name in order:
                    rate, cpu = {"psbench": psbench_l_i0, "python": python_l_i0}[name](s)
                    rows = (s.rows + 99) // 100 * 100
                    load[name].append((rate, cpu * 1e6 / rows))
                    print(f"round {r + 1} {name:8} l.i0   {rate:10.0f} rows/s     "
                          f"{cpu * 1e6 / rows:8.2f} us CPU/row", flush=True)
            if qsteps:
                for name in order:
                    load_for_queries(s)
                    res = {"psbench": psbench_queries, "python": python_queries}[name](s, qsteps)
                    # Rows per query and the writers' rate show both clients did the same work.
                    for q, (qps, us, proc_us, bg, rpq, user) in res.items():
                        query[(name, q)].append((qps, us, us * user))
                        what = ("query thread; whole process %.2f" % proc_us if proc_us is not None
                                else "query process")
                        print(f"round {r + 1} {name:8} {q:6} {qps:10.0f} queries/s  {us:8.2f} us "
                              f"CPU/query ({what}; {us * user:.2f} in user mode), "
                              f"{rpq:.2f} rows/query, writers "
                              f"{100 * bg:.1f}% of target", flush=True)
    finally:
        subprocess.run([PSBENCH, "sandbox", "stop", "ibl"], env=env, capture_output=True)
        shutil.rmtree(s.home, ignore_errors=True)

    def medians(v):
        return statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)

    if "l.i0" in steps:
        med = {k: medians(v) for k, v in load.items()}
        print(f"\nl.i0, 1 client, {s.rows} rows, median of {s.rounds}:")
        for k, (rate, cpu) in med.items():
            print(f"  {k:8} {rate:10.0f} rows/s  {cpu:7.2f} us client CPU per row")
        print(f"  psbench/python: rows/s {med['psbench'][0] / med['python'][0]:.2f}x, "
              f"client CPU per row {med['psbench'][1] / med['python'][1]:.2f}x")
    for q in qsteps:
        med = {k: medians(query[(k, q)]) for k in load}
        user = {k: statistics.median(x[2] for x in query[(k, q)]) for k in load}
        print(f"\n{q}, 1 client, {s.rows} rows, {s.query_seconds} s, median of {s.rounds}:")
        for k, (qps, us) in med.items():
            print(f"  {k:8} {qps:10.0f} queries/s  {us:7.2f} us client CPU per query "
                  f"({'query thread' if k == 'psbench' else 'query process'}), "
                  f"{user[k]:.2f} us of it in user mode")
        ratio = med["psbench"][1] / med["python"][1]
        print(f"  psbench/python: queries/s {med['psbench'][0] / med['python'][0]:.2f}x, "
              f"client CPU per query {ratio:.2f}x (goal <= {GOAL}x"
              f"{'' if ratio <= GOAL else ', NOT MET'}), "
              f"in user mode {user['psbench'] / user['python']:.2f}x")


if __name__ == "__main__":
    main()
