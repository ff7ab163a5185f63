#!/usr/bin/env bash
# The test command: installs what is missing, checks formatting and lints, runs every test
# (the tests start real MariaDB, MySQL and PostgreSQL sandboxes and run the real sysbench and
# pgbench), then names the tests it did not run and why.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -f "$HOME/.cargo/env" ]; then . "$HOME/.cargo/env"; fi
cargo fmt --check
cargo clippy --quiet --all-targets -- -D warnings
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Two test threads: the machine has 2 cores and every test runs a real server.
status=0
cargo test --release --no-fail-fast -- --test-threads=2 2>&1 | tee "$log" || status=$?
# What this run did not check: each ignored test with its reason (what it needs, and the
# command that provides it and runs it).
echo
echo "ignored tests (not run here):"
grep -E '^test .* \.\.\. ignored' "$log" | sed -E 's/^test (.*) \.\.\. ignored(, )?/  \1: /' || echo "  none"
exit "$status"
