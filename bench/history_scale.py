#!/usr/bin/env python3
"""How fast the results history answers at scale: a history of 1,000 series of 100 points
each (every tenth series with a 20% step, every fiftieth with a regression in its newest point),
written straight into psbench's SQLite layout (src/history/store.rs), then timed side by side:

    psbench history             every series, its newest point and its changes
    psbench history N           one series, its points and changes
    psbench history check       every series' newest point against its level
    psbench history --html F    the whole history as one page
    the page in headless Chromium: from navigation start to the end of its load event

Each command runs 5 times; the script prints the minimum, median and maximum seconds, and the
goal beside each (1 s for a command, 2 s for the page to load).

    python3 bench/history_scale.py [--series 1000] [--points 100]
"""
import argparse
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.environ.get("PSBENCH_BIN") or os.path.join(ROOT, "target", "release", "psbench")

SCHEMA = """
CREATE TABLE documents (id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
  study TEXT NOT NULL, tool_version TEXT NOT NULL, added_unix INTEGER NOT NULL);
CREATE TABLE series (id INTEGER PRIMARY KEY, engine TEXT NOT NULL, channel TEXT NOT NULL,
  step TEXT NOT NULL, workload TEXT NOT NULL, settings TEXT NOT NULL, threads INTEGER NOT NULL,
  metric TEXT NOT NULL, host_class TEXT NOT NULL,
  UNIQUE (engine, channel, step, workload, settings, threads, metric, host_class));
CREATE TABLE points (id INTEGER PRIMARY KEY, series INTEGER NOT NULL REFERENCES series(id),
  document INTEGER NOT NULL REFERENCES documents(id), variant TEXT NOT NULL, release TEXT NOT NULL,
  binary_sha256 TEXT NOT NULL, source TEXT, commit_id TEXT, date_unix INTEGER NOT NULL,
  value REAL NOT NULL, low REAL, high REAL, rounds INTEGER NOT NULL,
  UNIQUE (series, document, variant));
CREATE INDEX points_of_series ON points(series);
CREATE TABLE acceptances (point INTEGER PRIMARY KEY REFERENCES points(id), who TEXT NOT NULL,
  why TEXT NOT NULL, at_unix INTEGER NOT NULL);
PRAGMA user_version = 1;
"""

METRICS = ["throughput per second", "server CPU µs per transaction", "instructions per transaction"]


def build(path, n_series, n_points, seed):
    rng = random.Random(seed)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    start = 1_790_000_000
    for d in range(n_points):
        db.execute(
            "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?)",
            (d + 1, f"doc-{d}", f"/nonexistent/run-{d}/results.json", "scale", "0.1.0", start + d * 86400),
        )
    point = 0
    for s in range(n_series):
        metric = METRICS[s % 3]
        db.execute(
            "INSERT INTO series VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (s + 1, ["mariadb", "mysql", "postgres"][s % 3], f"channel {s % 7}", f"step{s % 11}",
             "point_select", f"settings {s}", [1, 2, 4, 0][s % 4], metric, "host class A"),
        )
        level = 1000.0 if metric != "instructions per transaction" else 42000.0
        noise = 0.02 if metric != "instructions per transaction" else 0.001
        for p in range(n_points):
            v = level * (1.2 if s % 10 == 0 and p >= n_points // 2 else 1.0)
            if s % 50 == 0 and p == n_points - 1:
                v *= 0.7 if metric == "throughput per second" else 1.3
            v *= 1 + rng.gauss(0, noise)
            point += 1
            db.execute(
                "INSERT INTO points VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?)",
                (point, s + 1, p + 1, "v", f"1.0.{p}", "sha", start + p * 86400, v,
                 v * (1 - 2 * noise), v * (1 + 2 * noise), 3),
            )
    db.commit()
    db.close()


def timed(args, env, runs=5, ok_codes=(0,)):
    seconds = []
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(args, env=env, capture_output=True, text=True)
        seconds.append(time.perf_counter() - t)
        if r.returncode not in ok_codes:
            sys.exit(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return seconds


def page_load(page, runs=5):
    """Navigation start to the end of the load event, in seconds, as Chromium measures it."""
    probe = ("<script>addEventListener('load', () => setTimeout(() => document.body.setAttribute("
             "'data-load', performance.timing.loadEventEnd - performance.timing.navigationStart)))"
             "</script>")
    with open(page) as f:
        html = f.read().replace("<body>", "<body>" + probe, 1)
    probed = page + ".probed.html"
    with open(probed, "w") as f:
        f.write(html)
    seconds = []
    for i in range(runs):
        with tempfile.TemporaryDirectory() as profile:
            out = subprocess.run(
                ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=10000",
                 "--dump-dom", f"file://{probed}"],
                capture_output=True, text=True,
            ).stdout
        at = out.find('data-load="')
        if at < 0:
            sys.exit("the page reported no load time")
        seconds.append(int(out[at + 11:].split('"')[0]) / 1000)
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--series", type=int, default=1000)
    ap.add_argument("--points", type=int, default=100)
    a = ap.parse_args()
    if not os.path.exists(PSBENCH):
        sys.exit(f"{PSBENCH} is missing: cargo build --release first")
    with tempfile.TemporaryDirectory() as d:
        history = os.path.join(d, "history.sqlite")
        build(history, a.series, a.points, 20261128)
        env = dict(os.environ, PSBENCH_HISTORY=history, PSBENCH_HOME=os.path.join(d, "home"))
        page = os.path.join(d, "history.html")
        rows = [
            ("psbench history", timed([PSBENCH, "history"], env), 1.0),
            (f"psbench history {a.series // 2}", timed([PSBENCH, "history", str(a.series // 2)], env), 1.0),
            ("psbench history check", timed([PSBENCH, "history", "check"], env, ok_codes=(0, 1)), 1.0),
            ("psbench history --html", timed([PSBENCH, "history", "--html", page], env), 1.0),
        ]
        size = os.path.getsize(page)
        rows.append(("page load in headless Chromium", page_load(page), 2.0))
        print(f"history of {a.series} series x {a.points} points; page {size / 1e6:.1f} MB")
        print("what | min s | median s | max s | goal s")
        print("--- | ---: | ---: | ---: | ---:")
        for name, s, goal in rows:
            print(f"{name} | {min(s):.3f} | {statistics.median(s):.3f} | {max(s):.3f} | {goal:.0f}")


if __name__ == "__main__":
    main()
