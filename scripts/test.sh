#!/usr/bin/env bash
# The test command: installs what is missing (scripts/setup.sh, then the tests' own extras:
# scripts/setup-tests.sh), checks formatting and lints, runs every test
# (the tests start real MariaDB, MySQL and PostgreSQL sandboxes and run the real sysbench and
# pgbench), then names the tests it did not run and why.
set -euo pipefail
cd "$(dirname "$0")/.."
# Where the time goes: each phase's end, from the start.
mark() { printf 'test.sh: %s, %dm%02ds in\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }
PSBENCH_SETUP_TESTS=1 bash scripts/setup.sh
mark "set-up done"
if [ -f "$HOME/.cargo/env" ]; then . "$HOME/.cargo/env"; fi
log=$(mktemp)
later=$(mktemp)
lints=$(mktemp)
trap 'rm -f "$log" "$later" "$lints"' EXIT
cargo fmt --check
# The lints run while the tests' set-up waits on apt and downloads. In the release profile they
# reuse what set-up built (build scripts, such as SQLite's C compile, and derive macros).
cargo clippy --release --quiet --all-targets -- -D warnings >"$lints" 2>&1 &
lints_pid=$!
bash scripts/setup-tests.sh
mark "the tests' set-up done"
if ! wait "$lints_pid"; then
  cat "$lints" >&2
  echo "cargo clippy --release --all-targets -- -D warnings failed (above)" >&2
  exit 1
fi
cat "$lints"
mark "formatting and lints checked"
status=0
# psbench's own MySQL 9.7.2 builds (a flag set takes about 50 minutes to build on 2 cores),
# imported into the build cache as a CI cache would restore them: the tests of a 9.7 build
# (tests/suite/mysql_97.rs, ignored without them) run on them after the rest.
shared_builds=${PSBENCH_SHARED_BUILDS:-../shared/builds}
imported=false
if compgen -G "$shared_builds/*.tar.xz" >/dev/null; then
  imported=true
  for archive in "$shared_builds"/*.tar.xz; do
    if ! ./target/release/psbench build import "$archive" >/dev/null; then
      echo "build archive $archive was refused (above)" >&2
      imported=false
      status=1
    fi
  done
elif [ "${CI:-}" = true ]; then
  echo "no build archives in $shared_builds: CI=true needs psbench's MySQL 9.7.2 builds there (or PSBENCH_SHARED_BUILDS naming their directory)" >&2
  status=1
else
  echo "no build archives in $shared_builds: the tests of a MySQL 9.7.2 build stay ignored (PSBENCH_SHARED_BUILDS names another directory)"
fi
mark "builds imported"
# Two test threads: the machine has 2 cores and every test runs a real server. (The tests run
# by name below once ran beside these: the suite took 284 s longer, and a writer's rate that
# only a loaded machine misses was missed.)
cargo test --release --no-fail-fast -- --test-threads=2 2>&1 | tee "$log" || status=$?
mark "the tests ran"
if $imported; then
  cargo test --release --test suite mysql_97:: -- --ignored --test-threads=2 2>&1 | tee -a "$later" || status=$?
  mark "the tests of MySQL 9.7.2's builds ran"
fi
# docs/sharding.md's Slurm job array under a real Slurm (tests/suite/slurm_shards.rs), in a
# private one-node cluster: as root only (slurmd runs the jobs as their submitter); CI must run it.
if [ "$(id -u)" -eq 0 ] && [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] \
  && [ -x /usr/sbin/munged ] && [ -x /usr/bin/sbatch ]; then
  trap 'bash scripts/slurm.sh stop; rm -f "$log" "$later" "$lints"' EXIT
  if slurm_env=$(bash scripts/slurm.sh start); then
    eval "$slurm_env"
    cargo test --release --test suite slurm_shards:: -- --ignored 2>&1 | tee -a "$later" || status=$?
  else
    status=1
  fi
  bash scripts/slurm.sh stop
  trap 'rm -f "$log" "$later" "$lints"' EXIT
  mark "the Slurm test ran"
elif [ "${CI:-}" = true ]; then
  echo "slurm_shards: CI=true needs root and Debian's Slurm (sudo bash scripts/test.sh; setup.sh installs slurmctld slurmd slurm-client munge)" >&2
  status=1
fi
# What this run did not check: each ignored test with its reason (what it needs, and the
# command that provides it and runs it).
echo
echo "ignored tests (not run here):"
# (Those run by name after the rest, above, are left out.)
ran=$(sed -nE 's/^test (.*) \.\.\. (ok|FAILED)$/test \1 .../p' "$later")
grep -E '^test .* \.\.\. ignored' "$log" \
  | { if [ -n "$ran" ]; then grep -vF "$ran"; else cat; fi; } \
  | sed -E 's/^test (.*) \.\.\. ignored(, )?/  \1: /' || echo "  none"
exit "$status"
