#!/usr/bin/env bash
# psbench's change points against Apache Otava's on the same series (bench/otava_compare.py):
# installs apache-otava from PyPI into its own virtual environment (under
# ${PSBENCH_BENCH_CACHE:-~/.cache/psbench-bench}, never the system's Python), builds psbench,
# and prints per series the changes each found and whether they agree. Not run in CI.
#   bash bench/otava_compare.sh [--sweep RESULTS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${PSBENCH_BENCH_CACHE:-$HOME/.cache/psbench-bench}/otava-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import otava.analysis' 2>/dev/null; then
  echo "otava_compare: installing apache-otava into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet apache-otava
fi
"$venv/bin/pip" show apache-otava 2>/dev/null | grep -E '^(Name|Version):' >&2 || true
cargo build --release --quiet
exec "$venv/bin/python" bench/otava_compare.py "$@"
