#!/usr/bin/env bash
# The test command: installs what is missing, checks formatting and lints, runs every test
# (the tests start real MariaDB sandboxes and run the real sysbench).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -f "$HOME/.cargo/env" ]; then . "$HOME/.cargo/env"; fi
cargo fmt --check
cargo clippy --quiet --all-targets -- -D warnings
# Two test threads: the machine has 2 cores and every test runs a real server.
cargo test --release -- --test-threads=2
