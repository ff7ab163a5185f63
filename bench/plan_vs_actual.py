#!/usr/bin/env python3
"""What `psbench run STUDY --plan` says a study takes, against what it then takes, for one
study of each engine: MariaDB (the system's), MySQL (a release from Maven Central) and
PostgreSQL (the system's). Each runs with a home of its own, so that no earlier study on this
host informs its plan: the plan's count times are then psbench's per-engine defaults. The
releases a study fetches are fetched first (`psbench fetch`), as the plan leaves that time out.

For each study it prints the plan's expected minutes, the measured wall minutes of `psbench
run`, their ratio, and whether that is within a factor of 1.5 either way; it exits 1 when one
is not. The plan rounds to whole minutes, so a short study's ratio carries that rounding.

    python3 bench/plan_vs_actual.py [--keep DIR] [STUDY ARGS ...]

With no STUDY ARGS it runs the three below; each further argument is one study as a quoted
command line (`"pfs-overhead --rounds 1"`).
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PSBENCH = os.path.join(ROOT, "target", "release", "psbench")
STUDIES = [
    "pfs-overhead --rounds 1",
    "mysql-pfs --rounds 1",
    "pg-stat-overhead --rounds 1",
]
FACTOR = 1.5


def planned_minutes(text):
    last = text.strip().splitlines()[-1]
    if last.startswith("expected time: less than 1 min"):
        return 0.5, last
    m = re.match(r"expected time: about (\d+) min", last)
    if not m:
        sys.exit(f"no expected time in the plan's last line: {last}")
    return float(m.group(1)), last


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", help="keep the homes and results here")
    ap.add_argument("studies", nargs="*", default=STUDIES)
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="psbench-plan-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    rows = []
    for i, line in enumerate(a.studies):
        args = shlex.split(line)
        home = os.path.join(work, f"home{i}")
        env = dict(os.environ, PSBENCH_HOME=home)
        env.pop("PSBENCH_HISTORY", None)
        plan = subprocess.run([PSBENCH, "run", *args, "--plan"], env=env,
                              capture_output=True, text=True)
        if plan.returncode != 0:
            sys.exit(f"--plan of {line} failed: {plan.stderr.strip()}")
        for product, version in re.findall(
                r"^  (mariadb|mysql|postgres)-(\S+): to fetch from Maven Central", plan.stdout, re.M):
            subprocess.run([PSBENCH, "fetch", product, version], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        # The plan again, now that its releases are here.
        plan = subprocess.run([PSBENCH, "run", *args, "--plan"], env=env,
                              capture_output=True, text=True, check=True)
        minutes, said = planned_minutes(plan.stdout)
        print(f"{line}: {said}", flush=True)
        out = os.path.join(work, f"out{i}")
        started = time.monotonic()
        run = subprocess.run([PSBENCH, "run", *args, "--out", out], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        took = (time.monotonic() - started) / 60
        if run.returncode != 0:
            sys.exit(f"{line} failed after {took:.1f} min: {run.stderr.strip()[-2000:]}")
        rows.append((line, minutes, took))
    print()
    print(f"| study | planned | measured | measured / planned | within {FACTOR}× |")
    print("| --- | ---: | ---: | ---: | --- |")
    bad = 0
    for line, minutes, took in rows:
        ratio = took / minutes
        ok = 1 / FACTOR <= ratio <= FACTOR
        bad += not ok
        print(f"| `{line}` | {minutes:.0f} min | {took:.1f} min | {ratio:.2f} | "
              f"{'yes' if ok else 'no'} |")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
