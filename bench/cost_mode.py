#!/usr/bin/env python3
"""Cost mode's speed and repeatability: runs `psbench run pfs-overhead --cost` (every
performance_schema scenario, point select) REPEATS times from one psbench, then prints per
variant the wall seconds of its cost (the server's start under valgrind included), its
instructions per transaction in each repeat, the spread between repeats, and the ratio to
ps_off. Goals (issue 13): at most 10 s per variant; repeats agree within 0.2%.

    python3 bench/cost_mode.py [--repeats 2] [--variants ps_off,default,...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.path.join(ROOT, "target", "release", "psbench")


def run_once(home, out, variants):
    cmd = [PSBENCH, "run", "pfs-overhead", "--cost", "--out", out]
    if variants:
        cmd += ["--variants", variants]
    began = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PSBENCH_HOME=home))
    wall = time.monotonic() - began
    if r.returncode != 0:
        sys.exit(f"psbench failed:\n{r.stdout}\n{r.stderr}")
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f), wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--variants", default="")
    a = ap.parse_args()
    if not os.path.exists(PSBENCH):
        sys.exit("build first: cargo build --release")
    per = {}
    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        for i in range(a.repeats):
            doc, wall = run_once(home, os.path.join(tmp, f"out{i}"), a.variants)
            print(f"repeat {i + 1}: {wall:.1f} s for the whole study (dataset prepared once per home)")
            for c in doc["cost"]:
                if not c["ok"] or c.get("unstable"):
                    print(f"  {c['variant']}: {'unstable' if c['ok'] else 'failed'} {c.get('estimates') or c.get('error')}")
                    continue
                per.setdefault(c["variant"], []).append((c["ir_per_txn"], c.get("seconds", 0.0)))
    base = statistics.median(ir for ir, _ in per.get("ps_off", [(float("nan"), 0)]))
    print(f"{'variant':<18} {'seconds (max)':>13} {'Ir/txn per repeat':>28} {'spread':>8} {'/ ps_off':>9}")
    worst_s, worst_spread = 0.0, 0.0
    for v, runs in per.items():
        irs = [ir for ir, _ in runs]
        secs = max(s for _, s in runs)
        spread = (max(irs) - min(irs)) / min(irs)
        worst_s, worst_spread = max(worst_s, secs), max(worst_spread, spread)
        print(f"{v:<18} {secs:>13.1f} {' '.join(f'{x:.0f}' for x in irs):>28} {spread * 100:>7.3f}% {statistics.median(irs) / base:>9.3f}")
    print(f"slowest variant {worst_s:.1f} s (goal <= 10 s); widest spread {worst_spread * 100:.3f}% (goal <= 0.2%)")


if __name__ == "__main__":
    main()
