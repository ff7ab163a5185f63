#!/usr/bin/env bash
# The test command: installs what is missing, checks formatting and lints, runs every test
# (the tests start real MariaDB, MySQL and PostgreSQL sandboxes and run the real sysbench and
# pgbench), then names the tests it did not run and why.
set -euo pipefail
cd "$(dirname "$0")/.."
PSBENCH_SETUP_TESTS=1 bash scripts/setup.sh
if [ -f "$HOME/.cargo/env" ]; then . "$HOME/.cargo/env"; fi
cargo fmt --check
cargo clippy --quiet --all-targets -- -D warnings
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Two test threads: the machine has 2 cores and every test runs a real server.
status=0
cargo test --release --no-fail-fast -- --test-threads=2 2>&1 | tee "$log" || status=$?
# docs/sharding.md's Slurm job array under a real Slurm (tests/slurm_shards.rs), in a private
# one-node cluster: as root only (slurmd runs the jobs as their submitter); CI must run it.
slurm_ran=false
if [ "$(id -u)" -eq 0 ] && [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] \
  && [ -x /usr/sbin/munged ] && [ -x /usr/bin/sbatch ]; then
  trap 'bash scripts/slurm.sh stop; rm -f "$log"' EXIT
  if slurm_env=$(bash scripts/slurm.sh start); then
    eval "$slurm_env"
    cargo test --release --test slurm_shards -- --ignored || status=$?
    slurm_ran=true
  else
    status=1
  fi
  bash scripts/slurm.sh stop
  trap 'rm -f "$log"' EXIT
elif [ "${CI:-}" = true ]; then
  echo "slurm_shards: CI=true needs root and Debian's Slurm (sudo bash scripts/test.sh; setup.sh installs slurmctld slurmd slurm-client munge)" >&2
  status=1
fi
# What this run did not check: each ignored test with its reason (what it needs, and the
# command that provides it and runs it).
echo
echo "ignored tests (not run here):"
grep -E '^test .* \.\.\. ignored' "$log" \
  | { if $slurm_ran; then grep -v '^test the_pages_job_array_and_merge_run_and_resume_under_slurm '; else cat; fi; } \
  | sed -E 's/^test (.*) \.\.\. ignored(, )?/  \1: /' || echo "  none"
exit "$status"
