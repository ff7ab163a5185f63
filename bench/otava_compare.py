#!/usr/bin/env python3
"""psbench's change points against Apache Otava's (formerly Hunter) on the same series.

Otava is the reference for E-Divisive means with a t test on noisy benchmark series. This
script feeds both the same series and prints, per series, the change indices each found and
whether they agree:

  synthetic  noise only (20 series), a step up, a step down, two steps, a 20% step 1 to 4
             points before the end and 3 or 4 after the start, a single spike, and
             instruction counts with 0.1% jitter and one 2% step; each with a known answer
  sweep      with --sweep DIR (a finished sweep's results directory, e.g. pg-sweep's): each
             sweep's counts per step, in release order
  history    with --history FILE (a psbench results history): each series written for Otava
             by `psbench history N --otava DIR` and analysed by Otava's own `otava analyze`,
             beside `psbench history N`: the first point of each new level, by its position

psbench reads each series with `psbench history changes FILE` (E-Divisive means with Welch's
t test; `--counts` for instruction counts, whose rule uses each count's repeats); Otava with
otava.analysis.compute_change_points at its defaults (window 50, p 0.001, minimum magnitude
0). A change found by both within one point of each other agrees. The rules differ on purpose
in two places, explained in docs/history.md#against-apache-otava: psbench places a noisy
change where it is, as Otava does, but calls it only once five points follow it (before that it
is pending, and a segment of fewer than five between two changes is a blip, not a level), and
counts are judged by their own repeats rather than by a t test between sides.

Otava is installed from PyPI (apache-otava) into its own virtual environment by
bench/otava_compare.sh, which runs this script with that environment's Python:

    bash bench/otava_compare.sh [--sweep DIR]
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# PSBENCH_BIN: another psbench to compare (an older build, to see what a change of the rule did).
PSBENCH = os.environ.get("PSBENCH_BIN") or os.path.join(ROOT, "target", "release", "psbench")


def otava_found(values, min_magnitude=0.0):
    """Otava's changes: (index of the first point of the new level, mean before, mean after,
    p-value), the means over the neighbouring segments."""
    from otava.analysis import compute_change_points

    found = compute_change_points(
        list(values), window_len=50, max_pvalue=0.001, min_magnitude=min_magnitude
    )
    # Newer releases return (change points, weak change points).
    if isinstance(found, tuple):
        found = found[0]
    return sorted(
        (int(cp.index), float(cp.stats.mean_1), float(cp.stats.mean_2), float(cp.stats.pvalue))
        for cp in found
    )


def otava_changes(values, min_magnitude=0.0):
    """Otava's change indices."""
    return [c[0] for c in otava_found(values, min_magnitude)]


def psbench_changes(values, ranges=None):
    """psbench's change indices, from `psbench history changes`."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "series.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            if ranges is None:
                w.writerow(["value"])
                w.writerows([v] for v in values)
            else:
                w.writerow(["value", "low", "high"])
                w.writerows([v, lo, hi] for v, (lo, hi) in zip(values, ranges))
        cmd = [PSBENCH, "history", "changes", path] + (["--counts"] if ranges is not None else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    # A pending change (too few points after it to call yet) is placed all the same.
    return [int(row["index"]) for row in csv.DictReader(out.splitlines())]


def noise(rng, n, level, spread):
    return [rng.gauss(level, level * spread) for _ in range(n)]


def synthetic(rng):
    """(name, values, ranges or None, the known change indices)."""
    out = []
    for i in range(20):
        out.append((f"noise {i + 1} (80 points, 5%)", noise(rng, 80, 1000, 0.05), None, []))
    out.append(("step up +10% at 40 (3%)", noise(rng, 40, 1000, 0.03) + noise(rng, 40, 1100, 0.03), None, [40]))
    out.append(("step down -10% at 30 (3%)", noise(rng, 30, 1000, 0.03) + noise(rng, 30, 900, 0.03), None, [30]))
    out.append((
        "two steps +17% at 25, -16% at 50 (3%)",
        noise(rng, 25, 1000, 0.03) + noise(rng, 25, 1170, 0.03) + noise(rng, 25, 980, 0.03),
        None,
        [25, 50],
    ))
    # A 20% step in 2% noise near either end of 40 points: where Otava places it, and where
    # psbench does (pending while fewer than five points follow it).
    for after in range(1, 5):
        at = 40 - after
        out.append((f"step +20% {after} before the end (at {at} of 40, 2%)", noise(rng, at, 1000, 0.02) + noise(rng, after, 1200, 0.02), None, [at]))
    for at in (3, 4):
        out.append((f"step +20% at {at} of 40 (2%)", noise(rng, at, 1000, 0.02) + noise(rng, 40 - at, 1200, 0.02), None, [at]))
    spike = noise(rng, 60, 1000, 0.03)
    spike[30] *= 1.3
    out.append(("single +30% spike at 30 (3%)", spike, None, []))
    counts = [40000 * (1.02 if i >= 12 else 1.0) * (1 + rng.uniform(-0.001, 0.001)) for i in range(24)]
    ranges = [(v * 0.999, v * 1.001) for v in counts]
    out.append(("counts, 0.1% jitter, +2% at 12", counts, ranges, [12]))
    wobble = [40000 * (1 + 0.003 * (i % 2)) for i in range(24)]
    out.append(("counts, 0.3% wobble", wobble, [(v * 0.999, v * 1.001) for v in wobble], []))
    return out


def sweep_series(directory):
    """Each sweep's counts per step in release order, from a results directory."""
    with open(os.path.join(directory, "results.json")) as f:
        doc = json.load(f)
    order = [(v["name"], v.get("sweep")) for v in doc["study"]["variant"] if v.get("sweep")]
    out = []
    for sweep in dict.fromkeys(s for _, s in order):
        members = [n for n, s in order if s == sweep]
        steps = list(dict.fromkeys(c["step"] for c in doc["cost"]))
        for step in steps:
            points = []
            for m in members:
                c = next((c for c in doc["cost"] if c["variant"] == m and c["step"] == step and c["ok"]), None)
                if c is not None:
                    est = c.get("estimates") or [c["ir_per_txn"]]
                    lo = min(est + [c["ir_per_txn"]])
                    hi = max(est + [c["ir_per_txn"]])
                    points.append((m, c["ir_per_txn"], (lo, hi)))
            if len(points) >= 2:
                out.append((sweep, step, points))
    return out


def otava_cli_changes(text):
    """Point numbers where `otava analyze` shows a change: the row after each marked change."""
    found, marked = [], False
    for line in text.splitlines():
        if "%" in line and line.strip().strip("+-.%0123456789") == "":
            marked = True
            continue
        tokens = line.split()
        if marked and len(tokens) >= 6 and tokens[4].isdigit():
            found.append(int(tokens[4]))
            marked = False
    return found


def history_rows(history):
    """(series, Otava's change points, psbench's), by point number, for every series."""
    env = dict(os.environ, PSBENCH_HISTORY=history)
    listing = subprocess.run([PSBENCH, "history"], env=env, check=True, capture_output=True, text=True).stdout
    ids = [int(l.split()[0]) for l in listing.splitlines() if l[:4].strip().isdigit()]
    otava = os.path.join(os.path.dirname(sys.executable), "otava")
    rows = []
    for i in ids:
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([PSBENCH, "history", str(i), "--otava", d], env=env, check=True, capture_output=True)
            config = os.path.join(d, "otava.yaml")
            out = subprocess.run([otava, "analyze", f"psbench-series-{i}", "--config-file", config],
                                 cwd=d, capture_output=True, text=True).stdout
        shown = subprocess.run([PSBENCH, "history", str(i)], env=env, check=True, capture_output=True, text=True).stdout
        mine = [int(l.split(" and point ")[1].split()[0]) for l in shown.splitlines()
                if l.startswith(("change between", "pending change between"))]
        # Positions in the series, so that "within one point" means neighbouring points.
        table = subprocess.run([PSBENCH, "history", str(i), "--csv"], env=env, check=True,
                               capture_output=True, text=True).stdout
        order = [int(r["point"]) for r in csv.DictReader(table.splitlines())]
        at = {p: k for k, p in enumerate(order)}
        rows.append((i, [at[p] for p in otava_cli_changes(out)], [at[p] for p in mine]))
    return rows


def agree(a, b):
    """Changes within one point of each other, matched once each."""
    left = list(b)
    matched = 0
    for i in a:
        near = [j for j in left if abs(i - j) <= 1]
        if near:
            left.remove(near[0])
            matched += 1
    return matched == len(a) == len(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sweep", help="a finished sweep's results directory")
    ap.add_argument("--history", help="a psbench results history (SQLite file)")
    ap.add_argument("--seed", type=int, default=20261127)
    a = ap.parse_args()
    if not os.path.exists(PSBENCH):
        sys.exit(f"{PSBENCH} is missing: cargo build --release first")
    rng = random.Random(a.seed)
    rows = []
    # Counts are compared at psbench's minimum magnitude for counts (1%), given to Otava too;
    # what Otava calls below it at its own default (0) is listed after the table.
    below = []
    print("series | known | otava | psbench | agree")
    print("--- | --- | --- | --- | ---")

    def one(name, values, ranges, known, label=lambda idx: idx):
        counts = ranges is not None
        o = otava_changes(values, 0.01 if counts else 0.0)
        p = psbench_changes(values, ranges)
        rows.append((name, known, o, p))
        shown = "" if known is None else known
        print(f"{name} | {shown} | {label(o)} | {label(p)} | {'yes' if agree(o, p) else 'NO'}")
        if counts:
            for i, before, after, pv in otava_found(values, 0.0):
                if i not in o:
                    below.append(
                        f"{name}: at {label([i])[0]}, {100 * (after / before - 1):+.2f}% (p {pv:.1e})"
                    )

    for name, values, ranges, known in synthetic(rng):
        one(name, values, ranges, known)
    if a.sweep:
        for sweep, step, points in sweep_series(a.sweep):
            values = [v for _, v, _ in points]
            one(
                f"sweep {sweep} {step} ({len(points)} releases)",
                values,
                [r for _, _, r in points],
                None,
                lambda idx, points=points: [f"{i} ({points[i][0]})" for i in idx],
            )
    if a.history:
        for i, o, p in history_rows(a.history):
            rows.append((f"history series {i}", None, o, p))
            print(f"history series {i} (positions) |  | {o} | {p} | {'yes' if agree(o, p) else 'NO'}")
    missed = [(n, o, p) for n, _, o, p in rows if any(all(abs(i - j) > 1 for j in p) for i in o)]
    extra = [(n, o, p) for n, _, o, p in rows if any(all(abs(i - j) > 1 for j in o) for i in p)]
    noise_calls = [(n, p) for n, k, _, p in rows if k == [] and p]
    print()
    print(f"{len(rows)} series; Otava's changes psbench missed in {len(missed)}; psbench's beyond Otava's in {len(extra)}; psbench changes on a no-change series: {len(noise_calls)}")
    for n, o, p in missed:
        print(f"  missed: {n}: otava {o}, psbench {p}")
    for n, o, p in extra:
        print(f"  beyond otava: {n}: otava {o}, psbench {p}")
    print(f"Otava at its default minimum magnitude (0) on counts, below psbench's 1%: {len(below)}")
    for line in below:
        print(f"  {line}")


if __name__ == "__main__":
    main()
