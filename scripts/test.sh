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
lints=$(mktemp)
trap 'rm -f "$log" "$lints"' EXIT
cargo fmt --check
# The lints run while the tests' set-up waits on apt and downloads. In the release profile they
# reuse what set-up built (build scripts, such as liblzma's C compile, and derive macros).
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
# docs/sharding.md's Slurm job array under a real Slurm (tests/suite/slurm_shards.rs), in a
# private one-node cluster: as root only (slurmd runs the jobs as their submitter); CI must run it.
slurm=false
if [ "$(id -u)" -eq 0 ] && [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] \
  && [ -x /usr/sbin/munged ] && [ -x /usr/bin/sbatch ]; then
  trap 'bash scripts/slurm.sh stop; rm -f "$log" "$lints"' EXIT
  if slurm_env=$(bash scripts/slurm.sh start); then
    eval "$slurm_env"
    slurm=true
  else
    status=1
  fi
elif [ "${CI:-}" = true ]; then
  echo "slurm_shards: CI=true needs root and Debian's Slurm (sudo bash scripts/test.sh; setup.sh installs slurmctld slurmd slurm-client munge)" >&2
  status=1
fi
# The ignored tests of tests/suite/MODULE.rs: "MODULE::NAME<tab>reason" lines.
ignored_in() {
  awk -v m="$1" '/^#\[ignore = ".*"\]$/ { r = $0; sub(/^#\[ignore = "/, "", r); sub(/"\]$/, "", r); next }
    r != "" && /^fn / { n = $2; sub(/\(.*/, "", n); print m "::" n "\t" r; r = "" }' "tests/suite/$1.rs"
}
# The ignored tests this machine can run (a 9.7 build's once the builds are imported, the
# Slurm test once its cluster is up) run with the rest, the others skipped by name: run after
# the rest, they had kept one core busy for 3 minutes while the other idled.
run_ignored=()
skipped=()
if $imported || $slurm; then
  run_ignored=(--include-ignored)
  skipped=(sandbox::hold_two_sandboxes
    builds_mariadb::a_no_pfs_build_runs_with_performance_schema_compiled_out_and_ps_off_is_what_it_is
    builds_postgres::postgres_builds_from_debian_source_and_runs_beside_the_systems_binary_as_variants)
  if ! $imported; then
    mapfile -t -O ${#skipped[@]} skipped < <(ignored_in mysql_97 | cut -f1)
  fi
  $slurm || skipped+=(slurm_shards::the_pages_job_array_and_merge_run_and_resume_under_slurm)
  for t in "${skipped[@]}"; do run_ignored+=(--skip "$t"); done
fi
# Two test threads: the machine has 2 cores and every test runs a real server.
cargo test --release --no-fail-fast -- --test-threads=2 "${run_ignored[@]}" 2>&1 | tee "$log" || status=$?
mark "the tests ran"
if $slurm; then
  bash scripts/slurm.sh stop
  trap 'rm -f "$log" "$lints"' EXIT
fi
# What this run did not check: each ignored test with its reason (what it needs, and the
# command that provides it and runs it), as the run printed it or, for those skipped by name
# above, as its #[ignore] gives it.
echo
echo "ignored tests (not run here):"
ignored=$(grep -E '^test .* \.\.\. ignored' "$log" | sed -E 's/^test (.*) \.\.\. ignored(, )?/  \1: /' || true)
for t in "${skipped[@]}"; do
  reason=$(ignored_in "${t%%::*}" | awk -F'\t' -v t="$t" '$1 == t { print $2 }')
  ignored+="${ignored:+$'\n'}  $t: $reason"
done
echo "${ignored:-  none}"
exit "$status"
