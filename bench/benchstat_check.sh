#!/usr/bin/env bash
# Checks that benchstat (golang.org/x/perf) reads psbench's Go benchmark format: renders the
# checked-in study's bench.txt, runs benchstat over it, and fails on any line benchstat cannot
# parse or any metric it does not show. Needs Go; skips cleanly without it (CI does not run it).
#   bash bench/benchstat_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v go >/dev/null 2>&1; then
  echo "benchstat_check: SKIPPED: go is not installed"
  exit 0
fi
benchstat="$(go env GOPATH)/bin/benchstat"
if [ ! -x "$benchstat" ]; then
  echo "benchstat_check: installing benchstat"
  go install golang.org/x/perf/cmd/benchstat@latest
fi

cargo build --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
target/debug/psbench report --format gobench tests/data/report-study > "$tmp/bench.txt"

fail() { echo "benchstat_check: FAILED: $*"; exit 1; }

# Variants of one study side by side, as `psbench report` would advise.
"$benchstat" -col /variant "$tmp/bench.txt" > "$tmp/variants.txt" 2> "$tmp/err.txt"
# benchstat reports unparsable lines on stderr and still exits 0.
[ ! -s "$tmp/err.txt" ] || fail "benchstat could not parse: $(cat "$tmp/err.txt")"
for unit in tps p50-ms p95-ms p99-ms p99.9-ms max-ms server-cpu-us/op client-cpu-us/op \
            server-cs/op client-cs/op rKB/op wKB/op instructions/op; do
  grep -q -- " $unit " "$tmp/variants.txt" || fail "no $unit table"
done
grep -q "Throughput/step=point_select/threads=2" "$tmp/variants.txt" || fail "no point_select rows"
grep -q "Cost/step=read_only" "$tmp/variants.txt" || fail "no cost rows"
grep -q "default" "$tmp/variants.txt" || fail "no default column"

# Two studies (before and after) file against file: the same file twice shows no change.
cp "$tmp/bench.txt" "$tmp/after.txt"
"$benchstat" "$tmp/bench.txt" "$tmp/after.txt" > "$tmp/files.txt" 2> "$tmp/err.txt"
[ ! -s "$tmp/err.txt" ] || fail "benchstat could not parse: $(cat "$tmp/err.txt")"
grep -q "variant=ps_off" "$tmp/files.txt" || fail "no per-variant rows comparing files"

echo "benchstat_check: ok ($(grep -c "^Benchmark" "$tmp/bench.txt") result lines parsed)"
