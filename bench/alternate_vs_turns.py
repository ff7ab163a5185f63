#!/usr/bin/env python3
"""Today's rounds (schedule = "turns": each variant's server in turn) against alternating
slices (schedule = "alternate": every server up at once, 1-s slices A B B A ...), at the same
rounds, warm-up and measured seconds, on one study of MariaDB's point selects:

  ps_off          the base
  ps_off_again    ps_off once more: an A/A pair, nothing changed
  all_enabled     every performance_schema instrument and consumer on

Both designs run here one after the other (turns first, then alternate, then again if
--repeat 2). For every pair and thread count it prints the ratio and 95% interval over all
rounds, the interval's width (high/low), the study's wall minutes, and the width scaled to one
minute (width^sqrt(minutes): intervals narrow with the square root of the work, so this is
what each design resolves per minute, smaller is better). For the A/A pair it checks the
interval's coverage: the rounds cut into disjoint blocks of 3 (a default study) and 5, how many
blocks' intervals contain 1.0 (about 95% should); and, for the alternating design, the same
for an interval formed from slices alone, ignoring that each round is a new server instance.

    python3 bench/alternate_vs_turns.py [--rounds 20] [--threads 1,2] [--repeat 1]
                                        [--keep DIR]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.path.join(ROOT, "target", "release", "psbench")

# Two-sided 95% Student t quantiles by degrees of freedom (standard table values).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
        16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042,
        40: 2.021, 60: 2.000, 120: 1.980}


def t975(df):
    keys = sorted(T975)
    for k in keys:
        if df <= k:
            return T975[k]
    return 1.960


def interval(logs):
    """Mean log ratio's 95% t interval, as ratios (ratio, low, high)."""
    n = len(logs)
    m = statistics.fmean(logs)
    if n < 2:
        return math.exp(m), float("nan"), float("nan")
    h = t975(n - 1) * statistics.stdev(logs) / math.sqrt(n)
    return math.exp(m), math.exp(m - h), math.exp(m + h)


STUDY = """
name = "{name}"
base = "ps_off"
schedule = "{schedule}"
threads = [{threads}]
rounds = {rounds}
warmup = 1
duration = 3
[[variant]]
name = "ps_off"
scenario = "ps_off"
[[variant]]
name = "ps_off_again"
scenario = "ps_off"
[[variant]]
name = "all_enabled"
scenario = "all_enabled"
[[workload]]
workload = "oltp_point_select"
"""


def run(schedule, args, workdir):
    path = os.path.join(workdir, f"{schedule}.toml")
    with open(path, "w") as f:
        f.write(STUDY.format(name=f"aa-{schedule}", schedule=schedule, threads=args.threads,
                             rounds=args.rounds))
    out = os.path.join(workdir, f"out-{schedule}-{int(time.time())}")
    started = time.monotonic()
    p = subprocess.run([PSBENCH, "run", path, "--out", out], capture_output=True, text=True)
    minutes = (time.monotonic() - started) / 60
    if p.returncode != 0:
        sys.exit(f"psbench run failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f), minutes, out


def cells(doc, variant, threads):
    return {c["round"]: c for c in doc["cells"]
            if c["variant"] == variant and c["threads"] == threads and c["ok"]}


def round_logs(doc, new, threads, metric):
    base, other = cells(doc, "ps_off", threads), cells(doc, new, threads)
    return [math.log(metric(other[r]) / metric(base[r])) for r in sorted(base) if r in other]


def slice_logs(doc, new, threads):
    """Adjacent slices paired in sequence order, every round pooled: the slices-only view."""
    base, other = cells(doc, "ps_off", threads), cells(doc, new, threads)
    logs = []
    for r in sorted(base):
        if r not in other:
            continue
        b = sorted(base[r]["slices"], key=lambda s: s["position"])
        o = sorted(other[r]["slices"], key=lambda s: s["position"])
        logs += [math.log(x["tps"] / y["tps"]) for x, y in zip(o, b) if x["tps"] > 0 < y["tps"]]
    return logs


def coverage(logs, block):
    blocks = [logs[i:i + block] for i in range(0, len(logs) - block + 1, block)]
    covered = sum(1 for b in blocks if interval(b)[1] <= 1.0 <= interval(b)[2])
    return f"{covered}/{len(blocks)}"


def fmt(c):
    return f"{c[0]:.3f} [{c[1]:.3f}, {c[2]:.3f}]"


def report(label, doc, minutes, threads):
    print(f"\n{label}: {minutes:.1f} min, {doc['study']['rounds']} rounds")
    print(f"{'pair':<28} {'thr':>3} {'metric':<12} {'ratio [95% interval]':<26} {'width':>6} "
          f"{'per min':>8} {'cover 3':>8} {'cover 5':>8}")
    tps = lambda c: c["tps"]
    cpu = lambda c: c["resources"]["server_cpu_us_per_txn"]
    for new in ["ps_off_again", "all_enabled"]:
        for t in threads:
            for name, metric in [("tps", tps), ("server cpu", cpu)]:
                logs = round_logs(doc, new, t, metric)
                c = interval(logs)
                width = c[2] / c[1]
                per_min = width ** math.sqrt(minutes)
                cov = (coverage(logs, 3), coverage(logs, 5)) if new == "ps_off_again" else ("", "")
                print(f"{new + ' / ps_off':<28} {t:>3} {name:<12} {fmt(c):<26} {width:>6.3f} "
                      f"{per_min:>8.3f} {cov[0]:>8} {cov[1]:>8}")
            if doc["study"].get("schedule") == "alternate":
                logs = slice_logs(doc, new, t)
                c = interval(logs)
                cov = (coverage(logs, 9), coverage(logs, 15)) if new == "ps_off_again" else ("", "")
                print(f"{new + ' / ps_off':<28} {t:>3} {'tps slices':<12} {fmt(c):<26} "
                      f"{c[2] / c[1]:>6.3f} {'':>8} {cov[0]:>8} {cov[1]:>8}   "
                      f"(slices alone, {len(logs)} pairs, blocks of 9 and 15 slices)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--keep", help="write the results directories here")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    workdir = args.keep or tempfile.mkdtemp(prefix="psbench-alt-")
    os.makedirs(workdir, exist_ok=True)
    for _ in range(args.repeat):
        for schedule in ["turns", "alternate"]:
            doc, minutes, out = run(schedule, args, workdir)
            report(f"{schedule} ({out})", doc, minutes, threads)
    print("\nwidth: high/low of the interval over every round; per min: width^sqrt(minutes), "
          "the width one minute of this design would give (smaller resolves more); cover 3/5: "
          "A/A intervals over disjoint blocks of 3/5 rounds that contain 1.0.")


if __name__ == "__main__":
    main()
